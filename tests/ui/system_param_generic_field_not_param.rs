use ecs::prelude::*;

#[derive(SystemParam)]
struct Params<'w, T: Resource> {
    value: &'w T,
}

#[derive(Resource)]
struct Time(f32);

fn system(_: Params<Time>) {}

fn main() {
    World::new().run_system_once(system);
}
