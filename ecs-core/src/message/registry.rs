//! [`MessageRegistry`] and the systems that update every registered
//! message type once per frame.

use std::any::TypeId;

use super::{Message, Messages};
use crate::{
    change_detection::DetectChangesMut,
    resource::Resource,
    schedule::SystemSet,
    system::{Res, ResMut},
    utils::DropPanics,
    world::World,
};

/// One registered message type: how to update its buffer.
struct RegisteredMessage {
    type_id: TypeId,
    update: fn(&mut World),
}

/// The message types of a world that [`message_update_system`] updates:
/// a resource, created by the first registration.
#[derive(Default)]
pub struct MessageRegistry {
    /// Whether the next [`message_update_system`] run updates the buffers;
    /// set by [`signal_message_update_system`] in fixed-step loops.
    pub should_update: ShouldUpdateMessages,
    registered: Vec<RegisteredMessage>,
}

impl Resource for MessageRegistry {}

impl std::fmt::Debug for MessageRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageRegistry")
            .field("should_update", &self.should_update)
            .field("registered", &self.registered.len())
            .finish()
    }
}

/// Whether [`message_update_system`] updates the buffers when it next runs.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShouldUpdateMessages {
    /// Without a fixed-step loop: update every time.
    #[default]
    Always,
    /// A fixed-step loop is in use and has not run a step since the last
    /// update: wait.
    Waiting,
    /// A fixed step ran since the last update: update.
    Ready,
}

impl MessageRegistry {
    /// Registers `M` in `world`: inserts an empty `Messages<M>` if there is
    /// none, and has [`message_update_system`] update it. Registering a
    /// type twice changes nothing, where bevy would update it twice per
    /// run.
    pub fn register_message<M: Message>(world: &mut World) {
        world.init_resource::<Messages<M>>();
        let mut registry = world.get_resource_or_init::<Self>();
        let registry = registry.bypass_change_detection();
        if !registry.is_registered::<M>() {
            registry.registered.push(RegisteredMessage {
                type_id: TypeId::of::<Messages<M>>(),
                update: update_messages::<M>,
            });
        }
    }

    /// Whether `M` is registered.
    pub fn is_registered<M: Message>(&self) -> bool {
        let type_id = TypeId::of::<Messages<M>>();
        self.registered.iter().any(|r| r.type_id == type_id)
    }

    /// Updates the buffers of every registered type that has its
    /// `Messages` resource in `world` ([`Messages::update`]).
    ///
    /// Unlike bevy's, it takes no change tick and updates every buffer:
    /// updating a buffer that saw no write is cheap, and the result is the
    /// same.
    ///
    /// # Panics
    /// If a message's `Drop` panics, once every type is updated.
    pub fn run_updates(&mut self, world: &mut World) {
        let mut panics = DropPanics::default();
        for registered in &self.registered {
            panics.catch(|| (registered.update)(world));
        }
        panics.finish();
    }

    /// Stops updating `M` and removes its `Messages<M>` from `world`.
    pub fn deregister_messages<M: Message>(world: &mut World) {
        if let Some(mut registry) = world.get_resource_mut::<Self>() {
            let type_id = TypeId::of::<Messages<M>>();
            registry
                .bypass_change_detection()
                .registered
                .retain(|r| r.type_id != type_id);
        }
        world.remove_resource::<Messages<M>>();
    }
}

/// Updates `world`'s `Messages<M>`, if present, without marking it changed.
fn update_messages<M: Message>(world: &mut World) {
    if let Some(mut messages) = world.get_resource_mut::<Messages<M>>() {
        messages.bypass_change_detection().update();
    }
}

/// The set [`message_update_system`] belongs in, to order systems around
/// it.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MessageUpdateSystems;

/// Updates every registered message type ([`Messages::update`]): add it
/// once to the schedule that runs once per frame, before or after all the
/// readers (see the [module docs](super) for fixed-step loops).
///
/// Does nothing in a world without a [`MessageRegistry`].
pub fn message_update_system(world: &mut World) {
    if !world.contains_resource::<MessageRegistry>() {
        return;
    }
    world.resource_scope(
        |world, mut registry: crate::change_detection::Mut<MessageRegistry>| {
            let registry = registry.bypass_change_detection();
            registry.run_updates(world);
            registry.should_update = match registry.should_update {
                ShouldUpdateMessages::Always => ShouldUpdateMessages::Always,
                ShouldUpdateMessages::Waiting | ShouldUpdateMessages::Ready => {
                    ShouldUpdateMessages::Waiting
                }
            };
        },
    );
}

/// Tells [`message_update_condition`] that a fixed step ran: add it at the
/// end of the fixed-step schedule, so buffers are updated only in frames
/// where readers there had a chance to read.
pub fn signal_message_update_system(registry: Option<ResMut<MessageRegistry>>) {
    if let Some(mut registry) = registry {
        registry.bypass_change_detection().should_update = ShouldUpdateMessages::Ready;
    }
}

/// A run condition for [`message_update_system`]: true unless
/// [`signal_message_update_system`] ever ran and no fixed step ran since
/// the last update.
pub fn message_update_condition(registry: Option<Res<MessageRegistry>>) -> bool {
    registry.is_none_or(|registry| registry.should_update != ShouldUpdateMessages::Waiting)
}
