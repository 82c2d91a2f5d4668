//! Cloning through commands: the [`EntityCommands`] forms of
//! `clone_and_spawn`, `clone_with_opt_out`/`opt_in`, `clone_components`
//! and `move_components`, applied when the commands are.

use super::EntityCommands;
use crate::{
    bundle::Bundle,
    entity::{Entity, EntityClonerBuilder, OptIn, OptOut},
    world::EntityWorldMut,
};

impl EntityCommands<'_> {
    /// Queues cloning this entity's components onto `target`, every one
    /// but those `config` denies.
    pub fn clone_with_opt_out(
        &mut self,
        target: Entity,
        config: impl FnOnce(&mut EntityClonerBuilder<OptOut>) + Send + Sync + 'static,
    ) -> &mut Self {
        self.queue(move |mut entity: EntityWorldMut| {
            entity.clone_with_opt_out(target, config);
        })
    }

    /// Queues cloning the components `config` allows of this entity onto
    /// `target`.
    pub fn clone_with_opt_in(
        &mut self,
        target: Entity,
        config: impl FnOnce(&mut EntityClonerBuilder<OptIn>) + Send + Sync + 'static,
    ) -> &mut Self {
        self.queue(move |mut entity: EntityWorldMut| {
            entity.clone_with_opt_in(target, config);
        })
    }

    /// Reserves an entity and queues cloning this one onto it; returns the
    /// clone's commands.
    pub fn clone_and_spawn(&mut self) -> EntityCommands<'_> {
        self.clone_and_spawn_with_opt_out(|_| {})
    }

    /// Reserves an entity and queues cloning this one onto it without the
    /// components `config` denies; returns the clone's commands.
    pub fn clone_and_spawn_with_opt_out(
        &mut self,
        config: impl FnOnce(&mut EntityClonerBuilder<OptOut>) + Send + Sync + 'static,
    ) -> EntityCommands<'_> {
        let target = self.commands.spawn_empty().id();
        self.clone_with_opt_out(target, config);
        self.commands.entity(target)
    }

    /// Reserves an entity and queues cloning the components `config`
    /// allows of this one onto it; returns the clone's commands.
    pub fn clone_and_spawn_with_opt_in(
        &mut self,
        config: impl FnOnce(&mut EntityClonerBuilder<OptIn>) + Send + Sync + 'static,
    ) -> EntityCommands<'_> {
        let target = self.commands.spawn_empty().id();
        self.clone_with_opt_in(target, config);
        self.commands.entity(target)
    }

    /// Queues cloning the components of `B` this entity has onto `target`.
    pub fn clone_components<B: Bundle>(&mut self, target: Entity) -> &mut Self {
        self.clone_with_opt_in(target, |builder| {
            builder.allow::<B>();
        })
    }

    /// Queues moving the components of `B` this entity has onto `target`.
    pub fn move_components<B: Bundle>(&mut self, target: Entity) -> &mut Self {
        self.clone_with_opt_in(target, |builder| {
            builder.allow::<B>().move_components(true);
        })
    }
}
