use ecs::prelude::*;

#[derive(Default)]
struct NotAComponent;

#[derive(Component, Default)]
struct Position;

#[derive(Component)]
#[require(Position, NotAComponent)]
struct Player;

fn main() {}
