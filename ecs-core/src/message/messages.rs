//! [`Messages<M>`]: the double-buffered store of one message type.

use std::cell::Cell;
use std::marker::PhantomData;

use super::{Message, MessageCursor, MessageId, MessageInstance};
use crate::resource::Resource;
use crate::utils::DropPanics;

/// The messages of type `M` written during the last two
/// [`update`](Messages::update)s: a resource, read through
/// [`MessageReader`](super::MessageReader)s and written through
/// [`MessageWriter`](super::MessageWriter)s.
///
/// Each `update` drops the older of its two buffers, so a message stays
/// readable until the second update after it was written; the
/// [module docs](super) say exactly when a reader loses one. Without
/// updates (a `Messages` inserted by hand and never registered) the
/// buffers grow without bound.
///
/// ```
/// use ecs::message::{Message, Messages};
///
/// #[derive(Message)]
/// struct Tick(u32);
///
/// let mut messages = Messages::<Tick>::default();
/// let mut cursor = messages.get_cursor();
/// messages.write(Tick(1));
/// messages.update();
/// messages.write(Tick(2));
/// assert_eq!(cursor.read(&messages).map(|t| t.0).collect::<Vec<_>>(), [1, 2]);
/// assert_eq!(cursor.read(&messages).count(), 0); // each message once per cursor
/// messages.update();
/// messages.update();
/// assert!(messages.is_empty()); // two updates later, both are gone
/// ```
#[derive(Debug)]
pub struct Messages<M: Message> {
    /// The older buffer; it ends where `newer` starts.
    pub(crate) older: MessageSequence<M>,
    /// The buffer writes go to.
    pub(crate) newer: MessageSequence<M>,
    /// How many messages were ever written: the next message's id.
    pub(crate) message_count: usize,
}

impl<M: Message> Resource for Messages<M> {}

// Derived, it would not be `Clone` for the buffers' sake alone.
impl<M: Message + Clone> Clone for Messages<M> {
    fn clone(&self) -> Self {
        Messages {
            older: self.older.clone(),
            newer: self.newer.clone(),
            message_count: self.message_count,
        }
    }
}

// A derived `Default` would require `M: Default`.
impl<M: Message> Default for Messages<M> {
    fn default() -> Self {
        Messages {
            older: MessageSequence::default(),
            newer: MessageSequence::default(),
            message_count: 0,
        }
    }
}

impl<M: Message> Messages<M> {
    /// The id of the oldest message still stored (or of the next one, when
    /// none is).
    pub fn oldest_message_count(&self) -> usize {
        self.older.start_message_count
    }

    /// Writes `message` into the newer buffer and returns its id.
    #[track_caller]
    pub fn write(&mut self, message: M) -> MessageId<M> {
        let message_id = MessageId::new(self.message_count);
        self.newer.messages.push(MessageInstance {
            message_id,
            message,
        });
        self.message_count += 1;
        message_id
    }

    /// Writes `message`, as [`write`](Self::write) does.
    #[deprecated(note = "use `Messages::write`")]
    #[track_caller]
    pub fn send(&mut self, message: M) -> MessageId<M> {
        self.write(message)
    }

    /// Writes every message of `messages`, in order, and returns their ids.
    #[track_caller]
    pub fn write_batch(&mut self, messages: impl IntoIterator<Item = M>) -> WriteBatchIds<M> {
        let last_count = self.message_count;
        self.extend(messages);
        WriteBatchIds {
            last_count,
            message_count: self.message_count,
            _marker: PhantomData,
        }
    }

    /// Writes `M::default()` and returns its id.
    #[track_caller]
    pub fn write_default(&mut self) -> MessageId<M>
    where
        M: Default,
    {
        self.write(M::default())
    }

    /// A cursor that will read every message stored now and later.
    pub fn get_cursor(&self) -> MessageCursor<M> {
        MessageCursor::default()
    }

    /// A cursor that will read only messages written from now on.
    pub fn get_cursor_current(&self) -> MessageCursor<M> {
        MessageCursor::starting_at(self.message_count)
    }

    /// Drops the older buffer and makes the newer one older: call it once
    /// per frame ([`message_update_system`](super::message_update_system)
    /// does, for registered types).
    pub fn update(&mut self) {
        std::mem::swap(&mut self.older, &mut self.newer);
        // The ids first: a message whose `Drop` panics leaves the buffers
        // in step (`clear` empties the buffer before it drops).
        self.newer.start_message_count = self.message_count;
        debug_assert_eq!(
            self.older.start_message_count + self.older.messages.len(),
            self.newer.start_message_count
        );
        self.newer.messages.clear();
    }

    /// [`update`](Self::update), returning the dropped messages, oldest
    /// first.
    #[must_use = "if you do not need the returned messages, call `update` instead"]
    pub fn update_drain(&mut self) -> impl Iterator<Item = M> + '_ {
        std::mem::swap(&mut self.older, &mut self.newer);
        self.newer.start_message_count = self.message_count;
        self.newer
            .messages
            .drain(..)
            .map(|instance| instance.message)
    }

    fn reset_start_message_count(&mut self) {
        self.older.start_message_count = self.message_count;
        self.newer.start_message_count = self.message_count;
    }

    /// Drops every stored message (ids keep growing from where they were).
    ///
    /// # Panics
    /// If a message's `Drop` panics, once every message is dropped.
    pub fn clear(&mut self) {
        self.reset_start_message_count();
        let mut panics = DropPanics::default();
        panics.catch(|| self.older.messages.clear());
        self.newer.messages.clear();
        panics.finish();
    }

    /// How many messages are stored.
    pub fn len(&self) -> usize {
        self.older.messages.len() + self.newer.messages.len()
    }

    /// Whether no message is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every stored message and returns them, oldest first.
    pub fn drain(&mut self) -> impl Iterator<Item = M> + '_ {
        self.reset_start_message_count();
        self.older
            .messages
            .drain(..)
            .chain(self.newer.messages.drain(..))
            .map(|instance| instance.message)
    }

    /// The messages written since the last `update`. Readers should use a
    /// [`MessageReader`](super::MessageReader) instead: this sees nothing
    /// written before that update, and nothing once the next one runs.
    pub fn iter_current_update_messages(&self) -> impl ExactSizeIterator<Item = &M> {
        self.newer.messages.iter().map(|instance| &instance.message)
    }

    /// The message with id `id`, if it is still stored.
    pub fn get_message(&self, id: usize) -> Option<(&M, MessageId<M>)> {
        if id < self.oldest_message_count() {
            return None;
        }
        let sequence = if id < self.newer.start_message_count {
            &self.older
        } else {
            &self.newer
        };
        sequence
            .messages
            .get(id - sequence.start_message_count)
            .map(|instance| (&instance.message, instance.message_id))
    }
}

impl<M: Message> Extend<M> for Messages<M> {
    #[track_caller]
    fn extend<I: IntoIterator<Item = M>>(&mut self, iter: I) {
        /// Sets the count to the ids handed out, also when the iterator
        /// panics: each id is taken just before its message is pushed.
        struct SetCount<'a> {
            count: &'a mut usize,
            next: &'a Cell<usize>,
        }
        impl Drop for SetCount<'_> {
            fn drop(&mut self) {
                *self.count = self.next.get();
            }
        }
        let next = Cell::new(self.message_count);
        let _set = SetCount {
            count: &mut self.message_count,
            next: &next,
        };
        self.newer
            .messages
            .extend(iter.into_iter().map(|message| MessageInstance {
                message_id: MessageId::new(next.replace(next.get() + 1)),
                message,
            }));
    }
}

/// One buffer of [`Messages`]: its messages and the id of its first.
#[derive(Debug)]
pub(crate) struct MessageSequence<M: Message> {
    pub(crate) messages: Vec<MessageInstance<M>>,
    pub(crate) start_message_count: usize,
}

impl<M: Message + Clone> Clone for MessageSequence<M> {
    fn clone(&self) -> Self {
        MessageSequence {
            messages: self
                .messages
                .iter()
                .map(|m| MessageInstance {
                    message_id: m.message_id,
                    message: m.message.clone(),
                })
                .collect(),
            start_message_count: self.start_message_count,
        }
    }
}

// A derived `Default` would require `M: Default`.
impl<M: Message> Default for MessageSequence<M> {
    fn default() -> Self {
        MessageSequence {
            messages: Vec::new(),
            start_message_count: 0,
        }
    }
}

/// The ids of a batch of messages written at once, in write order.
pub struct WriteBatchIds<M> {
    last_count: usize,
    message_count: usize,
    _marker: PhantomData<M>,
}

impl<M: Message> Iterator for WriteBatchIds<M> {
    type Item = MessageId<M>;

    fn next(&mut self) -> Option<MessageId<M>> {
        if self.last_count >= self.message_count {
            return None;
        }
        let id = MessageId::new(self.last_count);
        self.last_count += 1;
        Some(id)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let len = self.len();
        (len, Some(len))
    }
}

impl<M: Message> ExactSizeIterator for WriteBatchIds<M> {
    fn len(&self) -> usize {
        self.message_count.saturating_sub(self.last_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Note(u32);
    impl Message for Note {}

    #[test]
    fn ids_are_contiguous_across_updates_and_buffers() {
        let mut messages = Messages::<Note>::default();
        messages.write(Note(0));
        messages.update();
        let ids: Vec<_> = messages
            .write_batch([Note(1), Note(2)])
            .map(|id| id.id)
            .collect();
        assert_eq!(ids, [1, 2]);
        assert_eq!(messages.get_message(0).map(|(n, _)| n.0), Some(0));
        assert_eq!(
            messages.get_message(2).map(|(n, id)| (n.0, id.id)),
            Some((2, 2))
        );
        assert!(messages.get_message(3).is_none());
        messages.update();
        assert!(messages.get_message(0).is_none());
        assert_eq!(messages.oldest_message_count(), 1);
        assert_eq!(messages.iter_current_update_messages().count(), 0);
    }

    #[test]
    fn update_drain_returns_what_update_drops() {
        let mut messages = Messages::<Note>::default();
        messages.write(Note(7));
        assert_eq!(messages.update_drain().count(), 0);
        assert_eq!(
            messages.update_drain().map(|n| n.0).collect::<Vec<_>>(),
            [7]
        );
        assert!(messages.is_empty());
        messages.write(Note(8));
        assert_eq!(messages.drain().map(|n| n.0).collect::<Vec<_>>(), [8]);
        assert_eq!(messages.oldest_message_count(), 2);
    }
}
