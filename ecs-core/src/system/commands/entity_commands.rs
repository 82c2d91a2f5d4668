//! The conditional, fallible and entry forms of [`EntityCommands`], and
//! [`EntityEntryCommands`].

use std::{any::type_name, marker::PhantomData};

use super::{EntityCommand, EntityCommands};
use crate::{
    bundle::Bundle,
    change_detection::Mut,
    component::{Component, ComponentId, Mutable},
    error::BevyError,
    world::{EntityWorldMut, FromWorld, World},
};

impl<'a> EntityCommands<'a> {
    /// Queues an [`EntityCommand`] on the entity; if the entity is gone by
    /// then, or the command returns an error, the error is dropped.
    pub fn queue_silenced(&mut self, command: impl EntityCommand) -> &mut Self {
        self.commands
            .queue_silenced(command.with_entity(self.entity));
        self
    }

    /// Queues a command on the entity; if the entity is gone by then, an
    /// error naming it and `what` goes to the world's error handler (which
    /// panics by default), as bevy's `EntityCommands` do.
    pub(super) fn queue_named(
        &mut self,
        what: impl FnOnce() -> String + Send + 'static,
        command: impl FnOnce(EntityWorldMut<'_>) + Send + 'static,
    ) -> &mut Self {
        let entity = self.entity;
        self.commands
            .queue(move |world: &mut World| -> Result<(), BevyError> {
                match world.get_entity_mut(entity) {
                    Ok(e) => {
                        command(e);
                        Ok(())
                    }
                    Err(_) => Err(BevyError::from(format!(
                        "{} was queued for entity {entity:?}, which does not exist",
                        what()
                    ))),
                }
            });
        self
    }

    /// Shorter-lived commands for the same entity.
    pub fn reborrow(&mut self) -> EntityCommands<'_> {
        EntityCommands {
            entity: self.entity,
            commands: self.commands.reborrow(),
        }
    }

    /// Queues inserting `bundle` if `condition()` (called now) is true.
    pub fn insert_if<F>(&mut self, bundle: impl Bundle, condition: F) -> &mut Self
    where
        F: FnOnce() -> bool,
    {
        if condition() {
            self.insert(bundle)
        } else {
            self
        }
    }

    /// Queues inserting the components of `bundle` the entity lacks, if
    /// `condition()` (called now) is true.
    pub fn insert_if_new_and<F>(&mut self, bundle: impl Bundle, condition: F) -> &mut Self
    where
        F: FnOnce() -> bool,
    {
        if condition() {
            self.insert_if_new(bundle)
        } else {
            self
        }
    }

    /// Queues inserting `component` unless the entity has an equal value
    /// then: an equal value is left alone, so it is not marked changed and
    /// no insert hook or observer runs.
    pub fn insert_if_neq<T: Component + PartialEq>(&mut self, component: T) -> &mut Self {
        self.queue_named(
            || format!("insert_if_neq of `{}`", type_name::<T>()),
            move |mut e| {
                if e.get::<T>() != Some(&component) {
                    e.insert(component);
                }
            },
        )
    }

    /// Queues inserting `bundle`; if the entity is gone by then, nothing
    /// happens and nothing is logged.
    pub fn try_insert(&mut self, bundle: impl Bundle) -> &mut Self {
        self.queue_silenced(move |mut e: EntityWorldMut| {
            e.insert(bundle);
        })
    }

    /// [`EntityCommands::try_insert`] if `condition()` (called now) is
    /// true.
    pub fn try_insert_if<F>(&mut self, bundle: impl Bundle, condition: F) -> &mut Self
    where
        F: FnOnce() -> bool,
    {
        if condition() {
            self.try_insert(bundle)
        } else {
            self
        }
    }

    /// Queues inserting the components of `bundle` the entity lacks; if the
    /// entity is gone by then, nothing happens and nothing is logged.
    pub fn try_insert_if_new(&mut self, bundle: impl Bundle) -> &mut Self {
        self.queue_silenced(move |mut e: EntityWorldMut| {
            e.insert_if_new(bundle);
        })
    }

    /// [`EntityCommands::try_insert_if_new`] if `condition()` (called now)
    /// is true.
    pub fn try_insert_if_new_and<F>(&mut self, bundle: impl Bundle, condition: F) -> &mut Self
    where
        F: FnOnce() -> bool,
    {
        if condition() {
            self.try_insert_if_new(bundle)
        } else {
            self
        }
    }

    /// Queues removing the components of `B` if `condition()` (called now)
    /// is true.
    pub fn remove_if<B: Bundle>(&mut self, condition: impl FnOnce() -> bool) -> &mut Self {
        if condition() {
            self.remove::<B>()
        } else {
            self
        }
    }

    /// [`EntityCommands::remove_if`], silent if the entity is gone.
    pub fn try_remove_if<B: Bundle>(&mut self, condition: impl FnOnce() -> bool) -> &mut Self {
        if condition() {
            self.try_remove::<B>()
        } else {
            self
        }
    }

    /// Queues inserting `value` as the component `component_id`.
    ///
    /// # Safety
    /// `value`'s type is the component's (its layout and drop), and it may
    /// be sent and shared between threads as the component's values are.
    ///
    /// # Panics
    /// When applied, if `component_id` is not a registered component.
    pub unsafe fn insert_by_id<T: Send + 'static>(
        &mut self,
        component_id: ComponentId,
        value: T,
    ) -> &mut Self {
        self.queue_named(
            move || format!("insert_by_id of {component_id:?}"),
            move |mut e| {
                crate::ptr::OwningPtr::make(value, |ptr| {
                    // SAFETY: the value is of the component's type (the
                    // caller's contract).
                    unsafe { e.insert_by_id(component_id, ptr) };
                });
            },
        )
    }

    /// [`EntityCommands::insert_by_id`], silent if the entity is gone.
    ///
    /// # Safety
    /// As for [`EntityCommands::insert_by_id`].
    pub unsafe fn try_insert_by_id<T: Send + 'static>(
        &mut self,
        component_id: ComponentId,
        value: T,
    ) -> &mut Self {
        self.queue_silenced(move |mut e: EntityWorldMut| {
            crate::ptr::OwningPtr::make(value, |ptr| {
                // SAFETY: as in `insert_by_id`.
                unsafe { e.insert_by_id(component_id, ptr) };
            });
        })
    }

    /// Queues logging (at `info` level) the entity and the names of its
    /// components, sorted.
    pub fn log_components(&mut self) -> &mut Self {
        self.queue_named(
            || "log_components".to_owned(),
            |e| {
                let mut names: Vec<&str> = e
                    .archetype()
                    .components()
                    .filter_map(|id| e.world().components().get_name(id))
                    .collect();
                names.sort_unstable();
                log::info!("entity {}: {names:?}", e.id());
            },
        )
    }

    /// Queues [`EntityWorldMut::clear`]: removes every component, leaving
    /// the entity spawned and empty.
    pub fn clear(&mut self) -> &mut Self {
        self.queue_named(
            || "clear".to_owned(),
            |mut e| {
                e.clear();
            },
        )
    }

    /// Queues removing the components of `B` the entity has; if the entity
    /// is gone by then, nothing happens and nothing is logged.
    pub fn try_remove<B: Bundle>(&mut self) -> &mut Self {
        self.queue_silenced(|mut e: EntityWorldMut| {
            e.remove::<B>();
        })
    }

    /// Queues [`EntityWorldMut::remove_with_requires`]: the components of
    /// `B` and every component they require.
    pub fn remove_with_requires<B: Bundle>(&mut self) -> &mut Self {
        self.queue_named(
            || format!("remove_with_requires of `{}`", type_name::<B>()),
            |mut e| {
                e.remove_with_requires::<B>();
            },
        )
    }

    /// Queues removing the component `component_id`.
    ///
    /// # Panics
    /// When applied, if `component_id` is not a registered component.
    pub fn remove_by_id(&mut self, component_id: ComponentId) -> &mut Self {
        self.queue_named(
            move || format!("remove_by_id of {component_id:?}"),
            move |mut e| {
                e.remove_by_id(component_id);
            },
        )
    }

    /// Queues [`EntityWorldMut::retain`]: removes every component but those
    /// of `B` and the components they require.
    pub fn retain<B: Bundle>(&mut self) -> &mut Self {
        self.queue_named(
            || format!("retain of `{}`", type_name::<B>()),
            |mut e| {
                e.retain::<B>();
            },
        )
    }

    /// The entity's component `T` as a queued entry: modify it if present,
    /// insert it if not, when the commands apply.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Default)]
    /// struct Hits(u32);
    ///
    /// fn hit(mut commands: Commands, targets: Query<Entity>) {
    ///     for target in &targets {
    ///         commands.entity(target).entry::<Hits>().and_modify(|mut h| h.0 += 1).or_default();
    ///     }
    /// }
    ///
    /// let mut world = World::new();
    /// let e = world.spawn_empty().id();
    /// world.run_system_once(hit).unwrap();
    /// world.run_system_once(hit).unwrap();
    /// assert_eq!(world.get::<Hits>(e).unwrap().0, 1);
    /// ```
    pub fn entry<T: Component>(&mut self) -> EntityEntryCommands<'_, T> {
        EntityEntryCommands {
            entity_commands: self.reborrow(),
            marker: PhantomData,
        }
    }
}

/// The queued form of an entity's component entry, from
/// [`EntityCommands::entry`]: each method queues a command that looks at
/// the component when it applies.
pub struct EntityEntryCommands<'a, T> {
    entity_commands: EntityCommands<'a>,
    marker: PhantomData<T>,
}

impl<T: Component<Mutability = Mutable>> EntityEntryCommands<'_, T> {
    /// Queues running `modify` on the value, if the entity has one when the
    /// command applies.
    pub fn and_modify(&mut self, modify: impl FnOnce(Mut<T>) + Send + Sync + 'static) -> &mut Self {
        self.entity_commands.queue(move |mut e: EntityWorldMut| {
            if let Some(value) = e.get_mut::<T>() {
                modify(value);
            }
        });
        self
    }
}

impl<T: Component> EntityEntryCommands<'_, T> {
    /// Shorter-lived entry commands for the same entity and component.
    pub fn reborrow(&mut self) -> EntityEntryCommands<'_, T> {
        EntityEntryCommands {
            entity_commands: self.entity_commands.reborrow(),
            marker: PhantomData,
        }
    }

    /// Queues inserting `default` if the entity has no `T` then.
    pub fn or_insert(&mut self, default: T) -> &mut Self {
        self.entity_commands.insert_if_new(default);
        self
    }

    /// [`EntityEntryCommands::or_insert`], silent if the entity is gone.
    pub fn or_try_insert(&mut self, default: T) -> &mut Self {
        self.entity_commands.try_insert_if_new(default);
        self
    }

    /// Queues inserting `default()` if the entity has no `T` then
    /// (`default` is not called otherwise).
    pub fn or_insert_with<F>(&mut self, default: F) -> &mut Self
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.entity_commands.queue_named(
            || format!("or_insert_with of `{}`", type_name::<T>()),
            insert_with(default),
        );
        self
    }

    /// [`EntityEntryCommands::or_insert_with`], silent if the entity is
    /// gone.
    pub fn or_try_insert_with<F>(&mut self, default: F) -> &mut Self
    where
        F: FnOnce() -> T + Send + 'static,
    {
        self.entity_commands.queue_silenced(insert_with(default));
        self
    }

    /// Queues inserting `T::default()` if the entity has no `T` then.
    pub fn or_default(&mut self) -> &mut Self
    where
        T: Default,
    {
        self.or_insert_with(T::default)
    }

    /// Queues inserting `T::from_world(world)` if the entity has no `T`
    /// then.
    pub fn or_from_world(&mut self) -> &mut Self
    where
        T: FromWorld,
    {
        self.entity_commands.queue_named(
            || format!("or_from_world of `{}`", type_name::<T>()),
            |mut e| {
                if !e.contains::<T>() {
                    let value = e.world_scope(|world| T::from_world(world));
                    e.insert(value);
                }
            },
        );
        self
    }

    /// The entity's commands.
    pub fn entity(&mut self) -> EntityCommands<'_> {
        self.entity_commands.reborrow()
    }
}

/// Inserts `default()` unless the entity has a `T`.
fn insert_with<T: Component>(
    default: impl FnOnce() -> T + Send + 'static,
) -> impl FnOnce(EntityWorldMut<'_>) + Send + 'static {
    move |mut e| {
        if !e.contains::<T>() {
            e.insert(default());
        }
    }
}
