//! The spatial index: animals bucketed by grid cell, for neighbour look-ups.

use bevy_ecs::prelude::*;

use super::components::{Cell, Position};
use super::resources::Settings;

/// Animals of one species by grid cell, rebuilt every frame by a counting
/// sort over `Cell`: `entries[starts[c]..starts[c + 1]]` are in cell `c`.
#[derive(Default)]
pub struct Grid {
    pub cells: u32,
    pub starts: Vec<u32>,
    pub entries: Vec<(Entity, Position)>,
}

impl Grid {
    /// `animals` is called twice: to count, then to place.
    pub fn rebuild<'a, I>(&mut self, cells: u32, animals: impl Fn() -> I)
    where
        I: Iterator<Item = (Entity, &'a Position, &'a Cell)>,
    {
        let count = (cells * cells) as usize;
        self.cells = cells;
        self.starts.clear();
        self.starts.resize(count + 1, 0);
        for (_, _, cell) in animals() {
            self.starts[cell.0 as usize + 1] += 1;
        }
        for c in 0..count {
            self.starts[c + 1] += self.starts[c];
        }
        let mut next = self.starts.clone();
        let placeholder = (Entity::PLACEHOLDER, Position::default());
        self.entries.clear();
        self.entries
            .resize(self.starts[count] as usize, placeholder);
        for (entity, &position, cell) in animals() {
            let slot = &mut next[cell.0 as usize];
            self.entries[*slot as usize] = (entity, position);
            *slot += 1;
        }
    }

    /// Everything in `cell` and its eight neighbours.
    pub fn around(&self, cell: u32) -> impl Iterator<Item = &(Entity, Position)> + '_ {
        let n = self.cells;
        let (cx, cy) = (cell % n, cell / n);
        (0..9).flat_map(move |k| {
            let c = ((cy + n + k / 3 - 1) % n * n + (cx + n + k % 3 - 1) % n) as usize;
            &self.entries[self.starts[c] as usize..self.starts[c + 1] as usize]
        })
    }

    /// The position of the nearest entry within `radius` of `p`.
    pub fn nearest(
        &self,
        settings: &Settings,
        p: Position,
        cell: u32,
        radius: f32,
    ) -> Option<Position> {
        let mut best = (radius * radius, None);
        for &(_, q) in self.around(cell) {
            let (dx, dy) = settings.delta(p, q);
            if dx * dx + dy * dy <= best.0 {
                best = (dx * dx + dy * dy, Some(q));
            }
        }
        best.1
    }
}
