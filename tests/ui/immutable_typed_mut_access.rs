use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::{DeferredWorld, FilteredEntityMut};

#[derive(Component)]
#[component(immutable)]
struct Level(u32);

// Every typed way to `&mut Level` is refused: an immutable component
// changes by replacement only.
fn hook(mut world: DeferredWorld, context: HookContext) {
    world.get_mut::<Level>(context.entity);
}

fn entity_mut(mut entity: EntityMut, mut filtered: FilteredEntityMut, mut commands: Commands) {
    entity.get_mut::<Level>();
    entity.into_mut::<Level>();
    filtered.get_mut::<Level>();
    filtered.into_mut::<Level>();
    commands.entity(Entity::PLACEHOLDER).entry::<Level>().and_modify(|_| {});
}

fn main() {
    let mut world = World::new();
    let e = world.spawn(Level(1)).id();
    world.entity_mut(e).into_mut::<Level>();
    world.entity_mut(e).entry::<Level>().and_modify(|_| {});
    let mut query = world.query::<&mut Level>();
    let _ = query.contiguous_iter_mut(&mut world);
    let _ = (hook, entity_mut);
}
