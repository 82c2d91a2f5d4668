use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::DeferredWorld;

fn unindex(_: DeferredWorld, _: HookContext) {}

#[derive(Component)]
#[component(on_replace = unindex)]
struct Name(String);

fn main() {}
