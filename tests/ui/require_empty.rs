use ecs::prelude::*;

#[derive(Component)]
#[require()]
struct Body;

fn main() {}
