//! The iterators a read returns: shared, mutable and parallel.
//!
//! Each holds the reader's cursor and, when dropped, moves it past the
//! messages it yielded, so a read stopped early (or a panic in the loop
//! body) leaves the rest unread for the next read. Counting down one
//! field per message, not writing the cursor, keeps the loop tight.

use std::{
    iter::Chain,
    slice::{Iter, IterMut},
};

use rayon::prelude::*;

use super::{Message, MessageCursor, MessageId, MessageInstance, Messages};
use crate::batching::BatchingStrategy;

/// The fixed chunk length a strategy asks for over `len` messages, or
/// `None` to leave the splitting to rayon (no strategy set).
fn chunk_len(batching: &Option<BatchingStrategy>, len: usize) -> Option<usize> {
    batching.as_ref().map(|strategy| strategy.size_for(len))
}

/// The unread messages of a [`MessageReader`](super::MessageReader) or
/// [`MessageCursor`], oldest first.
#[derive(Debug)]
pub struct MessageIterator<'a, M: Message> {
    iter: MessageIteratorWithId<'a, M>,
}

impl<'a, M: Message> Iterator for MessageIterator<'a, M> {
    type Item = &'a M;

    fn next(&mut self) -> Option<&'a M> {
        self.iter.next().map(|(message, _)| message)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }

    fn count(self) -> usize {
        self.iter.count()
    }

    fn last(self) -> Option<&'a M> {
        self.iter.last().map(|(message, _)| message)
    }

    fn nth(&mut self, n: usize) -> Option<&'a M> {
        self.iter.nth(n).map(|(message, _)| message)
    }
}

impl<M: Message> ExactSizeIterator for MessageIterator<'_, M> {
    fn len(&self) -> usize {
        self.iter.len()
    }
}

/// The unread messages with their ids, oldest first.
#[derive(Debug)]
pub struct MessageIteratorWithId<'a, M: Message> {
    reader: &'a mut MessageCursor<M>,
    chain: Chain<Iter<'a, MessageInstance<M>>, Iter<'a, MessageInstance<M>>>,
    unread: usize,
    /// The id after the last message of the read.
    end: usize,
}

impl<M: Message> Drop for MessageIteratorWithId<'_, M> {
    fn drop(&mut self) {
        self.reader.last_message_count = self.end - self.unread;
    }
}

impl<'a, M: Message> MessageIteratorWithId<'a, M> {
    /// The messages of `messages` that `reader` has not read.
    pub fn new(reader: &'a mut MessageCursor<M>, messages: &'a Messages<M>) -> Self {
        let (a, b) = reader.start_read(messages);
        let (a, b) = (&messages.older.messages[a..], &messages.newer.messages[b..]);
        MessageIteratorWithId {
            reader,
            unread: a.len() + b.len(),
            chain: a.iter().chain(b.iter()),
            end: messages.message_count,
        }
    }

    /// The same messages, without their ids.
    pub fn without_id(self) -> MessageIterator<'a, M> {
        MessageIterator { iter: self }
    }
}

impl<'a, M: Message> Iterator for MessageIteratorWithId<'a, M> {
    type Item = (&'a M, MessageId<M>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let instance = self.chain.next()?;
        self.unread -= 1;
        Some((&instance.message, instance.message_id))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.unread, Some(self.unread))
    }

    fn count(mut self) -> usize {
        std::mem::take(&mut self.unread)
    }

    fn last(mut self) -> Option<Self::Item> {
        let instance = self.chain.by_ref().last()?;
        self.unread = 0;
        Some((&instance.message, instance.message_id))
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        let instance = self.chain.nth(n);
        self.unread = self.unread.saturating_sub(n + 1);
        instance.map(|instance| (&instance.message, instance.message_id))
    }
}

impl<M: Message> ExactSizeIterator for MessageIteratorWithId<'_, M> {
    fn len(&self) -> usize {
        self.unread
    }
}

/// The unread messages of a [`MessageMutator`](super::MessageMutator),
/// mutably, oldest first.
#[derive(Debug)]
pub struct MessageMutIterator<'a, M: Message> {
    iter: MessageMutIteratorWithId<'a, M>,
}

impl<'a, M: Message> Iterator for MessageMutIterator<'a, M> {
    type Item = &'a mut M;

    fn next(&mut self) -> Option<&'a mut M> {
        self.iter.next().map(|(message, _)| message)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }

    fn count(self) -> usize {
        self.iter.count()
    }

    fn last(self) -> Option<&'a mut M> {
        self.iter.last().map(|(message, _)| message)
    }

    fn nth(&mut self, n: usize) -> Option<&'a mut M> {
        self.iter.nth(n).map(|(message, _)| message)
    }
}

impl<M: Message> ExactSizeIterator for MessageMutIterator<'_, M> {
    fn len(&self) -> usize {
        self.iter.len()
    }
}

/// The unread messages with their ids, mutably, oldest first.
#[derive(Debug)]
pub struct MessageMutIteratorWithId<'a, M: Message> {
    reader: &'a mut MessageCursor<M>,
    chain: Chain<IterMut<'a, MessageInstance<M>>, IterMut<'a, MessageInstance<M>>>,
    unread: usize,
    /// The id after the last message of the read.
    end: usize,
}

impl<M: Message> Drop for MessageMutIteratorWithId<'_, M> {
    fn drop(&mut self) {
        self.reader.last_message_count = self.end - self.unread;
    }
}

impl<'a, M: Message> MessageMutIteratorWithId<'a, M> {
    /// The messages of `messages` that `reader` has not read.
    pub fn new(reader: &'a mut MessageCursor<M>, messages: &'a mut Messages<M>) -> Self {
        let (a, b) = reader.start_read(messages);
        let a = &mut messages.older.messages[a..];
        let b = &mut messages.newer.messages[b..];
        MessageMutIteratorWithId {
            end: reader.last_message_count + a.len() + b.len(),
            reader,
            unread: a.len() + b.len(),
            chain: a.iter_mut().chain(b.iter_mut()),
        }
    }

    /// The same messages, without their ids.
    pub fn without_id(self) -> MessageMutIterator<'a, M> {
        MessageMutIterator { iter: self }
    }
}

impl<'a, M: Message> Iterator for MessageMutIteratorWithId<'a, M> {
    type Item = (&'a mut M, MessageId<M>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let instance = self.chain.next()?;
        self.unread -= 1;
        Some((&mut instance.message, instance.message_id))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.unread, Some(self.unread))
    }

    fn count(mut self) -> usize {
        std::mem::take(&mut self.unread)
    }

    fn last(mut self) -> Option<Self::Item> {
        let instance = self.chain.by_ref().last()?;
        self.unread = 0;
        Some((&mut instance.message, instance.message_id))
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        let instance = self.chain.nth(n);
        self.unread = self.unread.saturating_sub(n + 1);
        instance.map(|instance| (&mut instance.message, instance.message_id))
    }
}

impl<M: Message> ExactSizeIterator for MessageMutIteratorWithId<'_, M> {
    fn len(&self) -> usize {
        self.unread
    }
}

/// The unread messages, for a walk on rayon's thread pool in no
/// particular order.
///
/// Unlike bevy's, it has no `batching_strategy`: rayon splits the two
/// buffers itself. The messages count as read once the walk finishes; if
/// the closure panics, none of them does, and the next read yields them
/// again.
#[derive(Debug)]
pub struct MessageParIter<'a, M: Message> {
    reader: &'a mut MessageCursor<M>,
    slices: [&'a [MessageInstance<M>]; 2],
    batching: Option<BatchingStrategy>,
}

impl<'a, M: Message> MessageParIter<'a, M> {
    /// The messages of `messages` that `reader` has not read.
    pub fn new(reader: &'a mut MessageCursor<M>, messages: &'a Messages<M>) -> Self {
        let (a, b) = reader.start_read(messages);
        MessageParIter {
            reader,
            slices: [&messages.older.messages[a..], &messages.newer.messages[b..]],
            batching: None,
        }
    }

    /// Hands rayon batches of messages sized by `strategy` (see
    /// [`BatchingStrategy`]) instead of letting it split the work.
    pub fn batching_strategy(mut self, strategy: BatchingStrategy) -> Self {
        self.batching = Some(strategy);
        self
    }

    /// Runs `func` on each message, in parallel.
    pub fn for_each<F: Fn(&'a M) + Send + Sync>(self, func: F) {
        self.for_each_with_id(move |message, _| func(message));
    }

    /// Runs `func` on each message and its id, in parallel.
    pub fn for_each_with_id<F: Fn(&'a M, MessageId<M>) + Send + Sync>(self, func: F) {
        let [a, b] = self.slices;
        let walk = a.into_par_iter().chain(b.into_par_iter());
        let run = |instance: &'a MessageInstance<M>| func(&instance.message, instance.message_id);
        match chunk_len(&self.batching, a.len() + b.len()) {
            Some(n) => walk.with_min_len(n).with_max_len(n).for_each(run),
            None => walk.for_each(run),
        }
        self.reader.last_message_count += a.len() + b.len();
    }

    /// How many messages the walk visits.
    pub fn len(&self) -> usize {
        self.slices[0].len() + self.slices[1].len()
    }

    /// Whether the walk visits nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, M: Message> IntoIterator for MessageParIter<'a, M> {
    type Item = (&'a M, MessageId<M>);
    type IntoIter = MessageIteratorWithId<'a, M>;

    /// The same messages, one at a time, oldest first.
    fn into_iter(self) -> MessageIteratorWithId<'a, M> {
        let [a, b] = self.slices;
        MessageIteratorWithId {
            end: self.reader.last_message_count + a.len() + b.len(),
            reader: self.reader,
            unread: a.len() + b.len(),
            chain: a.iter().chain(b.iter()),
        }
    }
}

/// The unread messages, mutably, for a walk on rayon's thread pool in no
/// particular order; see [`MessageParIter`].
#[derive(Debug)]
pub struct MessageMutParIter<'a, M: Message> {
    reader: &'a mut MessageCursor<M>,
    slices: [&'a mut [MessageInstance<M>]; 2],
    batching: Option<BatchingStrategy>,
}

impl<'a, M: Message> MessageMutParIter<'a, M> {
    /// The messages of `messages` that `reader` has not read.
    pub fn new(reader: &'a mut MessageCursor<M>, messages: &'a mut Messages<M>) -> Self {
        let (a, b) = reader.start_read(messages);
        MessageMutParIter {
            reader,
            slices: [
                &mut messages.older.messages[a..],
                &mut messages.newer.messages[b..],
            ],
            batching: None,
        }
    }

    /// Hands rayon batches of messages sized by `strategy` (see
    /// [`BatchingStrategy`]) instead of letting it split the work.
    pub fn batching_strategy(mut self, strategy: BatchingStrategy) -> Self {
        self.batching = Some(strategy);
        self
    }

    /// Runs `func` on each message, in parallel.
    pub fn for_each<F: Fn(&'a mut M) + Send + Sync>(self, func: F) {
        self.for_each_with_id(move |message, _| func(message));
    }

    /// Runs `func` on each message and its id, in parallel.
    pub fn for_each_with_id<F: Fn(&'a mut M, MessageId<M>) + Send + Sync>(self, func: F) {
        let [a, b] = self.slices;
        let read = a.len() + b.len();
        let walk = a.into_par_iter().chain(b.into_par_iter());
        let run =
            |instance: &'a mut MessageInstance<M>| func(&mut instance.message, instance.message_id);
        match chunk_len(&self.batching, read) {
            Some(n) => walk.with_min_len(n).with_max_len(n).for_each(run),
            None => walk.for_each(run),
        }
        self.reader.last_message_count += read;
    }

    /// How many messages the walk visits.
    pub fn len(&self) -> usize {
        self.slices[0].len() + self.slices[1].len()
    }

    /// Whether the walk visits nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, M: Message> IntoIterator for MessageMutParIter<'a, M> {
    type Item = (&'a mut M, MessageId<M>);
    type IntoIter = MessageMutIteratorWithId<'a, M>;

    /// The same messages, one at a time, oldest first.
    fn into_iter(self) -> MessageMutIteratorWithId<'a, M> {
        let [a, b] = self.slices;
        MessageMutIteratorWithId {
            end: self.reader.last_message_count + a.len() + b.len(),
            reader: self.reader,
            unread: a.len() + b.len(),
            chain: a.iter_mut().chain(b.iter_mut()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Note(u32);
    impl Message for Note {}

    fn ten() -> Messages<Note> {
        let mut messages = Messages::default();
        messages.write_batch((0..4).map(Note));
        messages.update();
        messages.write_batch((4..10).map(Note));
        messages
    }

    fn rest(cursor: &mut MessageCursor<Note>, messages: &Messages<Note>) -> Vec<u32> {
        cursor.read(messages).map(|n| n.0).collect()
    }

    #[test]
    fn a_read_stopped_early_leaves_the_rest() {
        let messages = ten();
        let mut cursor = messages.get_cursor();
        let first: Vec<u32> = cursor.read(&messages).take(5).map(|n| n.0).collect();
        assert_eq!(first, [0, 1, 2, 3, 4]);
        assert_eq!(cursor.len(&messages), 5);
        assert_eq!(rest(&mut cursor, &messages), [5, 6, 7, 8, 9]);
    }

    #[test]
    fn nth_last_and_count_move_the_cursor() {
        let messages = ten();
        let mut cursor = messages.get_cursor();
        assert_eq!(cursor.read(&messages).nth(2).map(|n| n.0), Some(2));
        assert_eq!(rest(&mut cursor, &messages), (3..10).collect::<Vec<_>>());

        let mut cursor = messages.get_cursor();
        assert_eq!(cursor.read(&messages).nth(20).map(|n| n.0), None);
        assert!(cursor.is_empty(&messages));

        let mut cursor = messages.get_cursor();
        assert_eq!(cursor.read(&messages).last().map(|n| n.0), Some(9));
        assert!(cursor.is_empty(&messages));

        let mut cursor = messages.get_cursor();
        assert_eq!(cursor.read_with_id(&messages).count(), 10);
        assert!(cursor.is_empty(&messages));
    }

    #[test]
    fn mutable_and_parallel_reads_move_the_cursor_alike() {
        let mut messages = ten();
        let mut cursor = messages.get_cursor();
        for note in cursor.read_mut(&mut messages).take(3) {
            note.0 += 100;
        }
        assert_eq!(cursor.len(&messages), 7);
        cursor.par_read_mut(&mut messages).for_each(|n| n.0 += 100);
        assert!(cursor.is_empty(&messages));
        let mut fresh = messages.get_cursor();
        assert_eq!(rest(&mut fresh, &messages), (100..110).collect::<Vec<_>>());
        let mut fresh = messages.get_cursor();
        let ids: Vec<usize> = fresh
            .par_read(&messages)
            .into_iter()
            .map(|(_, id)| id.id)
            .collect();
        assert_eq!(ids, (0..10).collect::<Vec<_>>());
        assert!(fresh.is_empty(&messages));
    }
}
