//! The animals' components and the bundles they are spawned with.

use ecs::{lifecycle::HookContext, prelude::*, world::DeferredWorld};

use crate::resources::Census;

#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}

/// Units per frame.
#[derive(Component, Clone, Copy, Debug, Default, PartialEq)]
pub struct Velocity {
    pub x: f32,
    pub y: f32,
}

#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Energy(pub f32);

#[derive(Component, Clone, Copy, Debug, Default)]
pub struct Age {
    pub frames: u32,
    pub lifespan: u32,
}

/// Where the animal's random draws start: given at birth, so what it does
/// depends on the seed alone, not on the id the ECS gave it.
#[derive(Component, Clone, Copy, Debug)]
pub struct RandomKey(pub u64);

/// The spatial-grid cell the animal was in when it last moved (`u32::MAX`
/// until `update_cells` first sees it).
#[derive(Component, Clone, Copy, Debug)]
pub struct Cell(pub u32);

#[derive(Component, Default)]
#[require(Velocity, Cell = Cell(u32::MAX), Age, Energy)]
pub struct Animal;

#[derive(Component, Default)]
#[require(Animal)]
pub struct Rabbit;

#[derive(Component, Default)]
#[require(Animal)]
pub struct Fox;

/// A rabbit that has seen a hunting fox, and where.
#[derive(Component)]
#[component(storage = "SparseSet")]
pub struct Fleeing {
    pub from: Position,
}

/// A fox looking for food.
#[derive(Component)]
#[component(storage = "SparseSet")]
pub struct Hungry;

/// Gives birth at frame `due`.
#[derive(Component)]
#[component(storage = "SparseSet", on_add = count_conception)]
pub struct Pregnant {
    pub due: u32,
}

pub fn count_conception(mut world: DeferredWorld, context: HookContext) {
    let is_fox = world.get::<Fox>(context.entity).is_some();
    world.resource_mut::<Census>().tally(is_fox).conceived += 1;
}

/// What every animal is spawned with; `#[require]` adds the rest.
#[derive(Bundle)]
pub struct Body {
    pub position: Position,
    pub energy: Energy,
    pub age: Age,
    pub key: RandomKey,
}

#[derive(Bundle)]
pub struct RabbitBundle {
    pub rabbit: Rabbit,
    pub body: Body,
}

#[derive(Bundle)]
pub struct FoxBundle {
    pub fox: Fox,
    pub body: Body,
}

/// Written by `hunt` for each rabbit a fox catches, read by `count_meals`.
#[derive(Message)]
pub struct Eaten {
    pub rabbit: Entity,
}
