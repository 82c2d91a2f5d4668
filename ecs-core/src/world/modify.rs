//! Changing a value as replacing it would: `modify_component`, the one way
//! to change an [`Immutable`](crate::component::Immutable) component in
//! place.
//!
//! ```text
//! on_discard hooks + observers ─▶ f(&mut value) ─▶ added = changed = now
//!                                                ─▶ on_insert hooks + observers
//!                                                ─▶ flush commands
//! ```
//!
//! The entity keeps its archetype and row: nothing moves, so no `on_add`
//! or `on_remove` runs.

use super::{error::EntityMutableFetchError, EntityRef, EntityWorldMut, World};
use crate::{
    change_detection::{Mut, MutUntyped},
    component::{Component, ComponentId},
    entity::Entity,
    observer::{lifecycle_hooks, observers_of_lifecycle, trigger_lifecycle, Lifecycle},
    ptr::PtrMut,
    utils::DropPanics,
};

impl World {
    /// Runs `f` on the entity's `T`, with the hooks and observers a
    /// replacement runs: `on_discard` before, `on_insert` after (the value
    /// reads as added and changed now). Returns what `f` returns, or `None`
    /// if the entity has no `T`. Commands the hooks and observers queued
    /// are applied before it returns.
    ///
    /// This is how an [`Immutable`](crate::component::Immutable) component
    /// changes without a new value; a mutable one may use it too, to have
    /// its hooks see the change.
    ///
    /// ```
    /// use ecs::lifecycle::HookContext;
    /// use ecs::prelude::*;
    /// use ecs::world::DeferredWorld;
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// #[component(immutable, on_insert = count)]
    /// struct Score(u32);
    ///
    /// #[derive(Resource, Default)]
    /// struct Inserts(u32);
    ///
    /// fn count(mut world: DeferredWorld, _: HookContext) {
    ///     world.resource_mut::<Inserts>().0 += 1;
    /// }
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Inserts>();
    /// let e = world.spawn(Score(1)).id();
    /// let old = world.modify_component(e, |score: &mut Score| std::mem::replace(&mut score.0, 7));
    /// assert_eq!(old, Ok(Some(1)));
    /// assert_eq!(world.get::<Score>(e), Some(&Score(7)));
    /// assert_eq!(world.resource::<Inserts>().0, 2);
    /// ```
    ///
    /// # Errors
    /// [`EntityMutableFetchError::NotSpawned`] if the entity does not
    /// exist, naming it (bevy answers `Ok(None)` when `T` was never
    /// registered, whether the entity exists or not).
    ///
    /// # Panics
    /// If `f`, a hook, an observer or a command they queued panics. The
    /// value stays on the entity as `f` left it. A panic of `f`, a hook or
    /// an observer goes on only once the rest has run: the `on_insert`
    /// hooks and observers, and the commands queued.
    #[track_caller]
    pub fn modify_component<T: Component, R>(
        &mut self,
        entity: Entity,
        f: impl FnOnce(&mut T) -> R,
    ) -> Result<Option<R>, EntityMutableFetchError> {
        let Some(id) = self.components.component_id::<T>() else {
            self.get_entity_mut(entity)?;
            self.flush();
            return Ok(None);
        };
        self.modify_component_by_id(entity, id, |value| {
            // SAFETY: `id` is `T`'s, so the value is a `T`.
            let mut value: Mut<'_, T> = unsafe { value.with_type::<T>() };
            f(&mut value)
        })
    }

    /// [`World::modify_component`] for the component `id`, through an
    /// untyped pointer (marked changed when written through).
    ///
    /// # Errors
    /// [`EntityMutableFetchError::NotSpawned`] if the entity does not
    /// exist, naming it.
    ///
    /// # Panics
    /// As for [`World::modify_component`].
    #[track_caller]
    pub fn modify_component_by_id<R>(
        &mut self,
        entity: Entity,
        id: ComponentId,
        f: impl for<'a> FnOnce(MutUntyped<'a>) -> R,
    ) -> Result<Option<R>, EntityMutableFetchError> {
        let location = self.get_entity_mut(entity)?.location();
        let archetype = &self.archetypes[location.archetype_id];
        if !archetype.contains(id) {
            self.flush();
            return Ok(None);
        }
        let flags = archetype.flags();
        // A panic of a hook, an observer or `f` goes on once the
        // replacement is whole: `on_insert` follows every `on_discard`.
        let mut panics = DropPanics::default();
        if flags.intersects(Lifecycle::Discard.any_flags()) {
            // Unlike a removal's, the hook runs before the observers here,
            // as in bevy's `modify_component`.
            let components = &[id];
            lifecycle_hooks(self, Lifecycle::Discard, entity, components, &mut panics);
            observers_of_lifecycle(self, Lifecycle::Discard, entity, components, &mut panics);
        }
        // Hooks and observers reach the world only through deferred access
        // (their structural changes wait in the command queue), so the
        // entity is where it was, with its value.
        debug_assert_eq!(self.entities.get(entity), Some(location));
        let this_run = self.change_tick();
        let last_run = self.last_change_tick;
        let (ptr, added, changed) = EntityRef::new(self, entity, location)
            .component_cells(id)
            .expect("hooks and observers cannot remove a component at once");
        // A value changed here is replaced in the hooks' eyes: `on_discard`
        // ran and `on_insert` runs next, even if `f` panics.
        let mut result = None;
        panics.catch(|| {
            // SAFETY: `&mut self` borrows the world exclusively; the value
            // and its ticks are the entity's, borrowed only by `f`, which
            // cannot keep them (`for<'a>`).
            result = Some(unsafe {
                f(MutUntyped::new(
                    PtrMut::new(ptr),
                    &mut *added.get(),
                    &mut *changed.get(),
                    last_run,
                    this_run,
                ))
            });
        });
        // SAFETY: the cells are the entity's (above) and nothing else
        // borrows them now that `f` returned or unwound.
        unsafe { *added.get() = *changed.get() };
        if flags.intersects(Lifecycle::Insert.any_flags()) {
            trigger_lifecycle(self, Lifecycle::Insert, entity, &[id], &mut panics);
        }
        self.flush();
        panics.finish();
        Ok(Some(
            result.expect("`f` returned, or its panic went on above"),
        ))
    }
}

impl EntityWorldMut<'_> {
    /// [`World::modify_component`] on this entity: runs `f` on its `T`
    /// between the `on_discard` and `on_insert` hooks and observers a
    /// replacement runs. `None` if the entity has no `T`.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// #[component(immutable)]
    /// struct Level(u32);
    ///
    /// let mut world = World::new();
    /// let mut e = world.spawn(Level(1));
    /// e.modify_component(|level: &mut Level| level.0 += 1);
    /// assert_eq!(e.get::<Level>(), Some(&Level(2)));
    /// ```
    ///
    /// # Panics
    /// If the entity was despawned (by a command a hook or observer
    /// queued), and as for [`World::modify_component`].
    #[track_caller]
    pub fn modify_component<T: Component, R>(&mut self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        self.refresh_location();
        self.relocate(|world, entity, _| {
            let result = world
                .modify_component(entity, f)
                .expect("the handle's entity is spawned");
            (result, location_after(world, entity))
        })
    }

    /// [`EntityWorldMut::modify_component`] for the component `id`.
    ///
    /// # Panics
    /// As for [`EntityWorldMut::modify_component`].
    #[track_caller]
    pub fn modify_component_by_id<R>(
        &mut self,
        id: ComponentId,
        f: impl for<'a> FnOnce(MutUntyped<'a>) -> R,
    ) -> Option<R> {
        self.refresh_location();
        self.relocate(|world, entity, _| {
            let result = world
                .modify_component_by_id(entity, id, f)
                .expect("the handle's entity is spawned");
            (result, location_after(world, entity))
        })
    }
}

/// Where `entity` is once the commands of a change were applied (invalid
/// if one despawned it).
fn location_after(world: &World, entity: Entity) -> crate::entity::EntityLocation {
    world
        .entities
        .get(entity)
        .unwrap_or(crate::entity::EntityLocation::INVALID)
}
