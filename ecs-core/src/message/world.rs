//! Writing and registering messages from a [`World`], a
//! [`DeferredWorld`] and [`Commands`].

use std::any::type_name;

use super::{Message, MessageId, MessageRegistry, Messages, WriteBatchIds};
use crate::{
    change_detection::Mut,
    system::Commands,
    world::{DeferredWorld, World},
};

/// Logs that `M` cannot be written, as bevy does.
#[cold]
fn log_unregistered<M: Message>() {
    log::error!(
        "unable to write message `{}`: it is not registered; call `world.add_message::<{0}>()` first",
        type_name::<M>()
    );
}

impl World {
    /// Registers the message type `M` ([`MessageRegistry::register_message`]):
    /// an empty `Messages<M>` resource, updated by
    /// [`message_update_system`](super::message_update_system).
    ///
    /// It stands in for bevy_app's `App::add_message`, since this crate
    /// has no app; registering twice changes nothing.
    pub fn add_message<M: Message>(&mut self) -> &mut Self {
        MessageRegistry::register_message::<M>(self);
        self
    }

    /// Writes `message`; its id, or `None` (and an error logged) when `M`
    /// is not registered.
    #[track_caller]
    pub fn write_message<M: Message>(&mut self, message: M) -> Option<MessageId<M>> {
        self.write_message_batch(std::iter::once(message))?.next()
    }

    /// Writes `M::default()`; see [`write_message`](Self::write_message).
    #[track_caller]
    pub fn write_message_default<M: Message + Default>(&mut self) -> Option<MessageId<M>> {
        self.write_message(M::default())
    }

    /// Writes every message of `messages`, in order; their ids, or `None`
    /// (and an error logged) when `M` is not registered.
    #[track_caller]
    pub fn write_message_batch<M: Message>(
        &mut self,
        messages: impl IntoIterator<Item = M>,
    ) -> Option<WriteBatchIds<M>> {
        write_batch(self.get_resource_mut::<Messages<M>>(), messages)
    }
}

impl DeferredWorld<'_> {
    /// Writes `message`; see [`World::write_message`].
    #[track_caller]
    pub fn write_message<M: Message>(&mut self, message: M) -> Option<MessageId<M>> {
        self.write_message_batch(std::iter::once(message))?.next()
    }

    /// Writes `M::default()`; see [`World::write_message`].
    #[track_caller]
    pub fn write_message_default<M: Message + Default>(&mut self) -> Option<MessageId<M>> {
        self.write_message(M::default())
    }

    /// Writes every message of `messages`; see [`World::write_message_batch`].
    #[track_caller]
    pub fn write_message_batch<M: Message>(
        &mut self,
        messages: impl IntoIterator<Item = M>,
    ) -> Option<WriteBatchIds<M>> {
        write_batch(self.get_resource_mut::<Messages<M>>(), messages)
    }
}

impl Commands<'_, '_> {
    /// Writes `message` when the commands are applied. Prefer a
    /// [`MessageWriter`](super::MessageWriter) where a system writes
    /// often: commands wait for exclusive world access.
    ///
    /// # Panics
    /// When applied, if `M` is not registered, naming it.
    #[track_caller]
    pub fn write_message<M: Message>(&mut self, message: M) -> &mut Self {
        self.queue(move |world: &mut World| {
            let Some(mut buffer) = world.get_resource_mut::<Messages<M>>() else {
                panic!(
                    "`Commands::write_message`: message `{}` is not registered; call \
                     `world.add_message::<{0}>()` first",
                    type_name::<M>()
                )
            };
            buffer.write(message);
        });
        self
    }
}

/// Writes `messages` into `buffer`, or logs that `M` is not registered.
#[track_caller]
fn write_batch<M: Message>(
    buffer: Option<Mut<'_, Messages<M>>>,
    messages: impl IntoIterator<Item = M>,
) -> Option<WriteBatchIds<M>> {
    let Some(mut buffer) = buffer else {
        log_unregistered::<M>();
        return None;
    };
    Some(buffer.write_batch(messages))
}
