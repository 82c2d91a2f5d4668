use ecs::prelude::*;

#[derive(Component)]
struct Position(f32);

fn main() {
    let mut world = World::new();
    world.spawn(Position(1.0));
    let mut query = world.query::<&mut Position>();
    for position in query.iter(&world) {
        position.0 += 1.0;
    }
}
