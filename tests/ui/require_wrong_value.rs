use ecs::prelude::*;

#[derive(Component)]
struct Mass(f32);

#[derive(Component)]
#[require(Mass = 1.0)]
struct Body;

fn main() {}
