use ecs::prelude::*;

// `on_insert` alone names `Self::on_insert`, which this type lacks.
#[derive(Component)]
#[component(on_add, on_insert)]
struct Health(u32);

impl Health {
    fn on_add(_: ecs::world::DeferredWorld, _: ecs::lifecycle::HookContext) {}
}

fn main() {}
