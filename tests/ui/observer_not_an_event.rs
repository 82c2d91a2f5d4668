use ecs::prelude::*;

#[derive(Component)]
struct Player;

fn main() {
    let mut world = World::new();
    // A component is not an event: observe one of its lifecycle events.
    world.add_observer(|_: On<Player>| {});
}
