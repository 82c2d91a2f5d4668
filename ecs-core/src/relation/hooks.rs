//! The hooks of [`Targets`] and [`Sources`]: whatever removes or replaces
//! one side (remove, take, despawn, insert over it) empties it and takes
//! the entity out of the other side, in place, before any observer runs.

use std::any::type_name;

use super::{EntityList, Relation, Sources, Targets};
use crate::{
    component::{Component, Mutable},
    entity::Entity,
    world::{DeferredWorld, World},
};

/// One side of a relation, so both hooks are written once.
pub(super) trait Side<R: Relation>: Component<Mutability = Mutable> + Sized {
    fn list(&self) -> &EntityList<R>;
    fn list_mut(&mut self) -> &mut EntityList<R>;
}

impl<R: Relation> Side<R> for Targets<R> {
    fn list(&self) -> &EntityList<R> {
        &self.list
    }
    fn list_mut(&mut self) -> &mut EntityList<R> {
        &mut self.list
    }
}

impl<R: Relation> Side<R> for Sources<R> {
    fn list(&self) -> &EntityList<R> {
        &self.list
    }
    fn list_mut(&mut self) -> &mut EntityList<R> {
        &mut self.list
    }
}

/// Takes `entity` out of `owner`'s `S`, in place; an emptied list is
/// removed by a queued command (a hook cannot change archetypes).
fn remove_in_place<R: Relation, S: Side<R>>(
    world: &mut DeferredWorld,
    owner: Entity,
    entity: Entity,
) {
    let Some(mut side) = world.get_mut::<S>(owner) else {
        return;
    };
    let list = side.list_mut();
    if list.remove(entity) && list.entities.is_empty() {
        world
            .commands()
            .queue(move |world: &mut World| remove_if_empty::<R, S>(world, owner));
    }
}

/// Removes `owner`'s `S` if it is (still) empty: a relation made meanwhile
/// may have refilled it.
pub(super) fn remove_if_empty<R: Relation, S: Side<R>>(world: &mut World, owner: Entity) {
    if let Ok(mut entity) = world.get_entity_mut(owner) {
        if entity
            .get::<S>()
            .is_some_and(|s| s.list().entities.is_empty())
        {
            entity.remove::<S>();
        }
    }
}

/// A list inserted by the relation methods is already linked (clear the
/// mark). Any other (a taken list, see [`take_entries`], or a clone
/// inserted by hand) is emptied, since the entities it names do not list
/// this one back, and removed again.
fn on_insert<R: Relation, S: Side<R>>(world: &mut DeferredWorld, entity: Entity) {
    let Some(mut side) = world.get_mut::<S>(entity) else {
        return;
    };
    let list = side.list_mut();
    if std::mem::take(&mut list.linked) {
        return;
    }
    if !list.entities.is_empty() {
        log::warn!(
            "a {} inserted on entity {entity:?} by hand names {:?}, which do not list it back; \
             it has been emptied (relate entities with the relation methods)",
            type_name::<S>(),
            list.entities
        );
        list.entities.clear();
    }
    world
        .commands()
        .queue(move |world: &mut World| remove_if_empty::<R, S>(world, entity));
}

/// Empties `entity`'s `S` in place and returns what it held. The list is
/// emptied, not just read, so that no one after the hook (an observer,
/// `take`) sees entities that no longer list it back.
fn take_entries<R: Relation, S: Side<R>>(world: &mut DeferredWorld, entity: Entity) -> Vec<Entity> {
    world
        .get_mut::<S>(entity)
        .map(|mut side| std::mem::take(&mut side.list_mut().entities))
        .unwrap_or_default()
}

/// The hooks of [`Targets`].
pub(super) mod targets {
    use super::*;
    use crate::lifecycle::HookContext;

    /// See [`super::on_insert`].
    pub(crate) fn on_insert<R: Relation>(mut world: DeferredWorld, ctx: HookContext) {
        super::on_insert::<R, Targets<R>>(&mut world, ctx.entity);
    }

    /// Every target loses this entity from its sources (and, for a
    /// symmetric kind, the reverse edges go too); the list is emptied.
    pub(crate) fn on_discard<R: Relation>(mut world: DeferredWorld, ctx: HookContext) {
        let source = ctx.entity;
        let targets = take_entries::<R, Targets<R>>(&mut world, source);
        for &target in &targets {
            remove_in_place::<R, Sources<R>>(&mut world, target, source);
        }
        if R::SYMMETRIC {
            // The reverse edges, target -> source.
            for &target in targets.iter().filter(|&&t| t != source) {
                remove_in_place::<R, Targets<R>>(&mut world, target, source);
                remove_in_place::<R, Sources<R>>(&mut world, source, target);
            }
        }
    }
}

/// The hooks of [`Sources`].
pub(super) mod sources {
    use super::*;
    use crate::lifecycle::HookContext;

    /// See [`super::on_insert`].
    pub(crate) fn on_insert<R: Relation>(mut world: DeferredWorld, ctx: HookContext) {
        super::on_insert::<R, Sources<R>>(&mut world, ctx.entity);
    }

    /// Every source loses this entity from its targets (and, for a
    /// symmetric kind, the reverse edges go too); the list is emptied.
    pub(crate) fn on_discard<R: Relation>(mut world: DeferredWorld, ctx: HookContext) {
        let target = ctx.entity;
        let sources = take_entries::<R, Sources<R>>(&mut world, target);
        for &source in &sources {
            remove_in_place::<R, Targets<R>>(&mut world, source, target);
        }
        if R::SYMMETRIC {
            // The reverse edges, this entity -> each source.
            for &source in sources.iter().filter(|&&s| s != target) {
                remove_in_place::<R, Targets<R>>(&mut world, target, source);
                remove_in_place::<R, Sources<R>>(&mut world, source, target);
            }
        }
    }
}
