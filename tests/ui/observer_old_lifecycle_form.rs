use ecs::prelude::*;

#[derive(Component)]
struct Player;

fn main() {
    let mut world = World::new();
    // The pattern names its components: `On<Add<Player>>`.
    world.add_observer(|_: On<Add, Player>| {});
}
