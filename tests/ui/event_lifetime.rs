use ecs::prelude::*;

#[derive(Event)]
struct Said<'a>(&'a str);

fn main() {}
