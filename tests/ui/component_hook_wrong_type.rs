use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::DeferredWorld;

fn on_add_health(_: DeferredWorld, _: HookContext) {}
fn takes_the_world(_: &mut World) {}

#[derive(Component)]
#[component(on_add = on_add_health, on_remove = takes_the_world)]
struct Health(u32);

fn main() {}
