// Lifecycle events are fired by the world as components come and go; a
// user cannot trigger one by hand.
use ecs::lifecycle::AddEvent;
use ecs::prelude::*;

fn main() {
    let mut world = World::new();
    let entity = world.spawn_empty().id();
    world.trigger(AddEvent { entity });
}
