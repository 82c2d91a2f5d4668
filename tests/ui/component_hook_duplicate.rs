use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::DeferredWorld;

fn first(_: DeferredWorld, _: HookContext) {}
fn second(_: DeferredWorld, _: HookContext) {}

#[derive(Component)]
#[component(on_insert = first)]
#[component(storage = "SparseSet", on_insert = second)]
struct Health(u32);

fn main() {}
