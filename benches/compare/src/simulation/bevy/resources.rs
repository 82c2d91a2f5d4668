//! The world's resources: settings, clock, grass, spatial grids and
//! statistics.

use bevy_ecs::prelude::*;

use super::components::Position;
use super::grid::Grid;
use crate::species::{CELL_SIZE, TILE_SIZE};

#[derive(Resource)]
pub struct Settings {
    pub seed: u64,
    /// Side of the meadow: positions are in `0.0..size`.
    pub size: f32,
    /// Grid cells per side.
    pub cells: u32,
}

impl Settings {
    pub fn cell_of(&self, p: Position) -> u32 {
        let max = self.cells - 1;
        let (cx, cy) = ((p.x / CELL_SIZE) as u32, (p.y / CELL_SIZE) as u32);
        cy.min(max) * self.cells + cx.min(max)
    }

    /// The shortest vector from `a` to `b` across the wrapping edges.
    pub fn delta(&self, a: Position, b: Position) -> (f32, f32) {
        let fold = |d: f32| d - self.size * (d / self.size).round();
        (fold(b.x - a.x), fold(b.y - a.y))
    }

    pub fn wrap(&self, v: f32) -> f32 {
        let w = v.rem_euclid(self.size);
        if w < self.size {
            w
        } else {
            0.0
        }
    }
}

#[derive(Resource, Default)]
pub struct Clock {
    pub frame: u32,
}

/// Grass height per tile, row by row.
#[derive(Resource)]
pub struct Pasture {
    pub side: u32,
    pub grass: Vec<f32>,
}

impl Pasture {
    pub fn index(&self, x: f32, y: f32) -> usize {
        let tile = |v: f32| (v / TILE_SIZE).floor().rem_euclid(self.side as f32) as u32 % self.side;
        (tile(y) * self.side + tile(x)) as usize
    }

    pub fn at(&self, x: f32, y: f32) -> f32 {
        self.grass[self.index(x, y)]
    }
}

#[derive(Resource, Default)]
pub struct RabbitGrid(pub Grid);

/// Hunting foxes only: sleeping ones scare nobody.
#[derive(Resource, Default)]
pub struct FoxGrid(pub Grid);

#[derive(Default, Clone, Copy)]
pub struct Tally {
    pub born: u64,
    pub died: u64,
    pub eaten: u64,
    pub starved: u64,
    pub old_age: u64,
    pub conceived: u64,
}

#[derive(Resource, Default)]
pub struct Census {
    pub rabbits: Tally,
    pub foxes: Tally,
    /// Of all animal-frames, those where `Changed<Position>` matched.
    pub cells_recomputed: u64,
    pub animal_frames: u64,
}

impl Census {
    pub fn tally(&mut self, is_fox: bool) -> &mut Tally {
        if is_fox {
            &mut self.foxes
        } else {
            &mut self.rabbits
        }
    }
}

#[derive(Clone, Copy, Default)]
pub struct Sample {
    pub rabbits: u32,
    pub foxes: u32,
    pub fleeing: u32,
    pub hungry: u32,
    pub grass: f32,
}

#[derive(Resource, Default)]
pub struct History(pub Vec<Sample>);
