use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::DeferredWorld;

fn on_add_health(_: DeferredWorld, _: HookContext) {}

#[derive(Component)]
#[component(on_added = on_add_health)]
struct Health(u32);

fn main() {}
