use ecs::prelude::*;

#[derive(Component)]
struct Name<'a> {
    name: &'a str,
}

fn main() {}
