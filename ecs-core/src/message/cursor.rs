//! [`MessageCursor`]: how far one reader has read.

use std::marker::PhantomData;

use super::{
    Message, MessageIterator, MessageIteratorWithId, MessageMutIterator, MessageMutIteratorWithId,
    MessageMutParIter, MessageParIter, Messages,
};

/// How far one reader has read a [`Messages<M>`]: the state of a
/// [`MessageReader`](super::MessageReader) or
/// [`MessageMutator`](super::MessageMutator), usable by hand (in a
/// `Local`, or outside systems).
///
/// It also counts the messages it lost: dropped by two
/// [`update`](Messages::update)s before it read them (see the
/// [module docs](super)).
///
/// ```
/// use ecs::message::{Message, MessageCursor, Messages};
///
/// #[derive(Message)]
/// struct Ping;
///
/// let mut messages = Messages::<Ping>::default();
/// let mut cursor = MessageCursor::default();
/// messages.write(Ping);
/// messages.update();
/// messages.update(); // `Ping` is dropped before the cursor read it
/// assert_eq!(cursor.missed_messages(&messages), 1);
/// assert_eq!(cursor.read(&messages).count(), 0);
/// assert_eq!(cursor.total_missed(), 1);
/// ```
#[derive(Debug)]
pub struct MessageCursor<M: Message> {
    /// The id of the next message to read.
    pub(crate) last_message_count: usize,
    /// Messages dropped before this cursor read them, over its life.
    pub(crate) missed: usize,
    _marker: PhantomData<M>,
}

impl<M: Message> Default for MessageCursor<M> {
    fn default() -> Self {
        MessageCursor::starting_at(0)
    }
}

impl<M: Message> Clone for MessageCursor<M> {
    fn clone(&self) -> Self {
        MessageCursor {
            last_message_count: self.last_message_count,
            missed: self.missed,
            _marker: PhantomData,
        }
    }
}

impl<M: Message> MessageCursor<M> {
    pub(crate) fn starting_at(last_message_count: usize) -> Self {
        MessageCursor {
            last_message_count,
            missed: 0,
            _marker: PhantomData,
        }
    }

    /// The unread messages, oldest first; see
    /// [`MessageReader::read`](super::MessageReader::read).
    pub fn read<'a>(&'a mut self, messages: &'a Messages<M>) -> MessageIterator<'a, M> {
        self.read_with_id(messages).without_id()
    }

    /// The unread messages with their ids; see
    /// [`MessageReader::read_with_id`](super::MessageReader::read_with_id).
    pub fn read_with_id<'a>(
        &'a mut self,
        messages: &'a Messages<M>,
    ) -> MessageIteratorWithId<'a, M> {
        MessageIteratorWithId::new(self, messages)
    }

    /// The unread messages, mutably; see
    /// [`MessageMutator::read`](super::MessageMutator::read).
    pub fn read_mut<'a>(&'a mut self, messages: &'a mut Messages<M>) -> MessageMutIterator<'a, M> {
        self.read_mut_with_id(messages).without_id()
    }

    /// The unread messages with their ids, mutably.
    pub fn read_mut_with_id<'a>(
        &'a mut self,
        messages: &'a mut Messages<M>,
    ) -> MessageMutIteratorWithId<'a, M> {
        MessageMutIteratorWithId::new(self, messages)
    }

    /// The unread messages, for a parallel walk; see
    /// [`MessageReader::par_read`](super::MessageReader::par_read).
    pub fn par_read<'a>(&'a mut self, messages: &'a Messages<M>) -> MessageParIter<'a, M> {
        MessageParIter::new(self, messages)
    }

    /// The unread messages, mutably, for a parallel walk.
    pub fn par_read_mut<'a>(
        &'a mut self,
        messages: &'a mut Messages<M>,
    ) -> MessageMutParIter<'a, M> {
        MessageMutParIter::new(self, messages)
    }

    /// How many messages the next read yields.
    pub fn len(&self, messages: &Messages<M>) -> usize {
        messages
            .message_count
            .saturating_sub(self.last_message_count)
            .min(messages.len())
    }

    /// Whether the next read yields nothing.
    pub fn is_empty(&self, messages: &Messages<M>) -> bool {
        self.len(messages) == 0
    }

    /// How many messages were dropped since this cursor's last read before
    /// it could read them: the next read skips them.
    pub fn missed_messages(&self, messages: &Messages<M>) -> usize {
        messages
            .oldest_message_count()
            .saturating_sub(self.last_message_count)
    }

    /// How many messages this cursor lost over its life, counted as reads
    /// and [`clear`](Self::clear)s skip them; add
    /// [`missed_messages`](Self::missed_messages) for those the next read
    /// will skip.
    pub fn total_missed(&self) -> usize {
        self.missed
    }

    /// Marks every stored message read, without reading it.
    pub fn clear(&mut self, messages: &Messages<M>) {
        self.missed += self.missed_messages(messages);
        self.last_message_count = messages.message_count;
    }

    /// Where the unread messages start in the older and the newer buffer.
    /// Records the messages dropped before them as missed and moves the
    /// cursor to the first unread one; each yielded message then advances
    /// it by one.
    pub(crate) fn start_read(&mut self, messages: &Messages<M>) -> (usize, usize) {
        self.missed += self.missed_messages(messages);
        let (older, newer) = (&messages.older, &messages.newer);
        let a = self
            .last_message_count
            .saturating_sub(older.start_message_count)
            .min(older.messages.len());
        let b = self
            .last_message_count
            .saturating_sub(newer.start_message_count)
            .min(newer.messages.len());
        let unread = older.messages.len() - a + newer.messages.len() - b;
        self.last_message_count = messages.message_count - unread;
        (a, b)
    }
}
