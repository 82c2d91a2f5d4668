//! `relations`: 100,000 entities, each relating to up to 8 others, and
//! 10,000 look-ups of "all sources of X" and "all targets of X".
//!
//! ```text
//! setup:  entity i ──Likes──▶ targets(i)   (0..=8 distinct others, fixed by i)
//! timed:  for x in lookups: fold sources_of(x), then targets_of(x)
//! ```
//!
//! Three cases answer the same look-ups: ours ([`ours`]: a many-to-many
//! `Relation`, `World::sources_of` / `World::targets_of`), the floor
//! ([`floor`]: two `HashMap<Entity, Vec<Entity>>`), and a one-to-many
//! hierarchy ([`relations_one_to_many!`](crate::relations_one_to_many),
//! expanded for `ecs` and for `bevy_ecs`): each entity's first target
//! becomes its `ChildOf` parent, and the look-ups read `Children` and
//! `ChildOf`. Each case's check recomputes the fold from the generator
//! alone, after the timing.

use std::collections::HashMap;

use ecs::prelude::*;

use crate::Case;

/// Entities in the world (fewer in this crate's unit tests, which run
/// unoptimised).
pub const ENTITIES: usize = if cfg!(test) { 10_000 } else { 100_000 };
/// The most relations one entity has.
pub const MAX_RELATIONS: usize = 8;
/// Look-ups per iteration.
pub const LOOKUPS: usize = if cfg!(test) { 1_000 } else { 10_000 };

/// A fixed, well-mixed hash (splitmix64), so every case builds the same
/// graph.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The targets of entity `i` (as indices): 0 to [`MAX_RELATIONS`]
/// distinct entities other than `i`, in relating order.
pub fn target_indices(i: usize) -> Vec<usize> {
    let count = (mix(i as u64) % (MAX_RELATIONS as u64 + 1)) as usize;
    let mut targets = Vec::with_capacity(count);
    let mut salt = 0u64;
    while targets.len() < count {
        salt += 1;
        let t = (mix((i as u64) << 8 ^ salt) % ENTITIES as u64) as usize;
        if t != i && !targets.contains(&t) {
            targets.push(t);
        }
    }
    targets
}

/// The parent of entity `i` in the one-to-many cut: its first target
/// that comes before it, so the parents form a forest (a cycle of
/// `ChildOf` is refused, as it would make ancestor walks endless).
pub fn parent_index(i: usize) -> Option<usize> {
    target_indices(i).into_iter().find(|&t| t < i)
}

/// The entities looked up (as indices).
pub fn lookup_indices() -> Vec<usize> {
    (0..LOOKUPS)
        .map(|k| (mix(u64::MAX - k as u64) % ENTITIES as u64) as usize)
        .collect()
}

/// Folds one entity into the checksum, order-sensitively.
#[inline]
pub fn fold(acc: u64, bits: u64) -> u64 {
    acc.rotate_left(5) ^ bits
}

/// Each entity's targets and sources, by index, as the generator makes
/// them: what every check compares with.
pub struct Model {
    /// `targets[i]`: what `i` relates to, in order.
    pub targets: Vec<Vec<usize>>,
    /// `sources[i]`: what relates to `i`, in order.
    pub sources: Vec<Vec<usize>>,
}

impl Model {
    /// The many-to-many graph.
    pub fn many_to_many() -> Self {
        Self::from_targets((0..ENTITIES).map(target_indices).collect())
    }

    /// The one-to-many graph: each entity's parent is
    /// [`parent_index`].
    pub fn one_to_many() -> Self {
        Self::from_targets(
            (0..ENTITIES)
                .map(|i| parent_index(i).into_iter().collect())
                .collect(),
        )
    }

    fn from_targets(targets: Vec<Vec<usize>>) -> Self {
        let mut sources = vec![Vec::new(); ENTITIES];
        for (i, list) in targets.iter().enumerate() {
            for &t in list {
                sources[t].push(i);
            }
        }
        Self { targets, sources }
    }

    /// The fold the timed body must produce, `bits` giving each index's
    /// entity bits.
    pub fn expected(&self, bits: impl Fn(usize) -> u64) -> u64 {
        let mut acc = 0;
        for x in lookup_indices() {
            for &s in &self.sources[x] {
                acc = fold(acc, bits(s));
            }
            for &t in &self.targets[x] {
                acc = fold(acc, bits(t));
            }
        }
        acc
    }
}

/// The relation kind of the scenario.
#[derive(Relation)]
pub struct Likes;

/// The state of a case on `ecs`.
struct OursCase {
    world: World,
    entities: Vec<Entity>,
    lookups: Vec<Entity>,
}

impl OursCase {
    fn run(&self) -> u64 {
        let mut acc = 0;
        for &x in &self.lookups {
            for source in self.world.sources_of::<Likes>(x) {
                acc = fold(acc, source.to_bits());
            }
            for target in self.world.targets_of::<Likes>(x) {
                acc = fold(acc, target.to_bits());
            }
        }
        acc
    }
}

/// `relations` on a many-to-many [`Relation`].
pub fn ours() -> Box<dyn Case> {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..ENTITIES).map(|_| world.spawn_empty().id()).collect();
    for (i, &source) in entities.iter().enumerate() {
        for t in target_indices(i) {
            world
                .relate::<Likes>(source, entities[t])
                .expect("both entities exist and differ");
        }
    }
    let lookups = lookup_indices().into_iter().map(|i| entities[i]).collect();
    crate::case(
        OursCase {
            world,
            entities,
            lookups,
        },
        |s| {
            std::hint::black_box(s.run());
        },
        |s| {
            let expected = Model::many_to_many().expected(|i| s.entities[i].to_bits());
            assert_eq!(
                s.run(),
                expected,
                "ours: the look-ups disagree with the model"
            );
            s.world
                .check_integrity()
                .expect("ours: the relation is consistent");
        },
    )
}

/// The state of the floor.
struct FloorCase {
    targets: HashMap<Entity, Vec<Entity>>,
    sources: HashMap<Entity, Vec<Entity>>,
    entities: Vec<Entity>,
    lookups: Vec<Entity>,
}

impl FloorCase {
    fn run(&self) -> u64 {
        let mut acc = 0;
        for x in &self.lookups {
            for s in self.sources.get(x).map_or(&[][..], Vec::as_slice) {
                acc = fold(acc, s.to_bits());
            }
            for t in self.targets.get(x).map_or(&[][..], Vec::as_slice) {
                acc = fold(acc, t.to_bits());
            }
        }
        acc
    }
}

/// `relations` on two hand-written `HashMap<Entity, Vec<Entity>>`.
pub fn floor() -> Box<dyn Case> {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..ENTITIES).map(|_| world.spawn_empty().id()).collect();
    let mut targets: HashMap<Entity, Vec<Entity>> = HashMap::new();
    let mut sources: HashMap<Entity, Vec<Entity>> = HashMap::new();
    for (i, &source) in entities.iter().enumerate() {
        for t in target_indices(i) {
            targets.entry(source).or_default().push(entities[t]);
            sources.entry(entities[t]).or_default().push(source);
        }
    }
    let lookups = lookup_indices().into_iter().map(|i| entities[i]).collect();
    crate::case(
        FloorCase {
            targets,
            sources,
            entities,
            lookups,
        },
        |s| {
            std::hint::black_box(s.run());
        },
        |s| {
            let expected = Model::many_to_many().expected(|i| s.entities[i].to_bits());
            assert_eq!(
                s.run(),
                expected,
                "floor: the look-ups disagree with the model"
            );
        },
    )
}

/// Defines `pub fn relations_one_to_many() -> Box<dyn Case>` on the ECS
/// named `$krate` (`ecs` or `bevy_ecs`), whose prelude is in scope: the
/// [`relations`](crate::relations) graph cut to one parent per entity,
/// looked up through `Children` and `ChildOf`.
#[macro_export]
macro_rules! relations_one_to_many {
    ($krate:ident) => {
        struct OneToManyCase {
            world: World,
            entities: Vec<Entity>,
            lookups: Vec<Entity>,
        }

        impl OneToManyCase {
            fn run(&self) -> u64 {
                use $crate::relations::fold;
                let mut acc = 0;
                for &x in &self.lookups {
                    if let Some(children) = self.world.get::<Children>(x) {
                        for child in children.iter() {
                            acc = fold(acc, child.to_bits());
                        }
                    }
                    if let Some(child_of) = self.world.get::<ChildOf>(x) {
                        acc = fold(acc, child_of.parent().to_bits());
                    }
                }
                acc
            }
        }

        /// `relations` cut to one-to-many: `Children` and `ChildOf`.
        pub fn relations_one_to_many() -> Box<dyn $crate::Case> {
            use $crate::relations::{lookup_indices, parent_index, ENTITIES};
            let mut world = World::new();
            let entities: Vec<Entity> = (0..ENTITIES).map(|_| world.spawn_empty().id()).collect();
            for (i, &child) in entities.iter().enumerate() {
                if let Some(parent) = parent_index(i) {
                    world.entity_mut(child).insert(ChildOf(entities[parent]));
                }
            }
            let lookups = lookup_indices().into_iter().map(|i| entities[i]).collect();
            $crate::case(
                OneToManyCase {
                    world,
                    entities,
                    lookups,
                },
                |s| {
                    ::std::hint::black_box(s.run());
                },
                |s| {
                    let expected = $crate::relations::Model::one_to_many()
                        .expected(|i| s.entities[i].to_bits());
                    assert_eq!(
                        s.run(),
                        expected,
                        "one-to-many: the look-ups disagree with the model"
                    );
                },
            )
        }
    };
}

mod ours_one_to_many {
    use ecs::prelude::*;

    crate::relations_one_to_many!(ecs);
}

pub use ours_one_to_many::relations_one_to_many;

#[cfg(test)]
mod tests {
    #[test]
    fn every_case_matches_the_model() {
        for build in [super::ours, super::floor, super::relations_one_to_many] {
            let mut case = build();
            case.run_batch(1);
            case.verify();
        }
    }

    #[test]
    fn the_graph_has_up_to_eight_distinct_targets_per_entity() {
        let mut total = 0;
        for i in (0..super::ENTITIES).step_by(97) {
            let targets = super::target_indices(i);
            assert!(targets.len() <= super::MAX_RELATIONS);
            assert!(!targets.contains(&i));
            total += targets.len();
        }
        assert!(total > 0);
    }
}
