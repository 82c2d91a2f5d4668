use ecs::prelude::*;

fn bad(x: u32) {
    let _ = x;
}

fn main() {
    let mut world = World::new();
    Schedule::default().add_systems(bad);
    world.run_system_once(bad);
}
