use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

fn main() {
    let mut world = World::new();
    world.spawn(Position(1.0));
    let mut query = world.query::<&mut Position>();
    let mut first = query.iter_mut(&mut world).next().unwrap();
    world.spawn(Position(2.0));
    first.0 += 1.0;
}
