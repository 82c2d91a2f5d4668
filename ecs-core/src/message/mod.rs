//! Buffered messages: values one system writes and any number of systems
//! read later, each at its own pace.
//!
//! A [`Message`] is written into the [`Messages<M>`] resource (by a
//! [`MessageWriter`], a [`MessageMutator`], [`World::write_message`] or
//! [`Commands::write_message`](crate::system::Commands::write_message)) and
//! read by [`MessageReader`]s. Each reader keeps a [`MessageCursor`] in its
//! system's state, so every reader sees each message once, in write order,
//! however many other readers there are. Unlike an [`Event`](crate::event::Event),
//! which runs its observers right where it is triggered, a message waits
//! in its buffer until a reader pulls it.
//!
//! ```
//! use ecs::message::message_update_system;
//! use ecs::prelude::*;
//!
//! #[derive(Message)]
//! struct Damage { amount: u32 }
//!
//! #[derive(Resource, Default)]
//! struct Taken(u32);
//!
//! fn hit(mut damage: MessageWriter<Damage>) {
//!     damage.write(Damage { amount: 5 });
//! }
//!
//! fn tally(mut damage: MessageReader<Damage>, mut taken: ResMut<Taken>) {
//!     for d in damage.read() {
//!         taken.0 += d.amount;
//!     }
//! }
//!
//! let mut world = World::new();
//! world.add_message::<Damage>();
//! world.init_resource::<Taken>();
//! let mut schedule = Schedule::default();
//! schedule.add_systems((message_update_system, hit, tally).chain());
//! for _ in 0..3 {
//!     schedule.run(&mut world);
//! }
//! assert_eq!(world.resource::<Taken>().0, 15);
//! ```
//!
//! # The double buffer
//!
//! [`Messages<M>`] holds two buffers. Writes go to the newer one; each
//! [`Messages::update`] drops the older one and makes the newer one older:
//!
//! ```text
//!            written            update 1           update 2
//!  older:    [ ]                [m1 m2]            [m3]        (m1, m2 dropped)
//!  newer:    [m1 m2]   ──▶      [m3]        ──▶    [ ]
//! ```
//!
//! So a message lives from its write until the second `update` after it.
//! Registered message types ([`World::add_message`],
//! [`MessageRegistry::register_message`]) are updated together by
//! [`message_update_system`]; without an update, buffers grow without
//! bound. With updates, a buffer nobody reads never holds more than the
//! messages written since the last two updates.
//!
//! # When messages are dropped
//!
//! A reader loses a message only when **two `update`s run between two of
//! its reads** (or between the write and its first read) and the message
//! was written before the first of them. Precisely, a message written
//! between updates `k` and `k + 1` is readable until update `k + 2`
//! runs; a reader that reads at least once between any two consecutive
//! updates, as every system in the same schedule as `message_update_system`
//! does, sees every message exactly once. A reader created after a message
//! was written still sees it while it is buffered.
//!
//! Losing a message is never silent: [`MessageReader::missed_messages`]
//! counts every message the reader lost this way over its life, and
//! [`MessageCursor::missed_messages`] how many are lost since its last
//! read. Nothing is printed; check the count where loss matters.
//!
//! Fixed-step loops are where readers most often skip updates: a schedule
//! that runs zero or several times per frame, while `update` runs once per
//! frame. Two patterns deliver every message exactly once:
//!
//! - update in the fixed-step schedule itself, once per step, with the
//!   readers (every reader then reads once per update);
//! - or update once per frame only in frames where a step ran:
//!   [`message_update_system`] with the run condition
//!   [`message_update_condition`], and [`signal_message_update_system`] at
//!   the end of the fixed step, as bevy's app does. Set
//!   [`MessageRegistry::should_update`] to [`ShouldUpdateMessages::Waiting`]
//!   when building the loop, or frames before the first step still update.
//!
//! A reader starts at the oldest message stored when its system is
//! initialised: it reads everything still buffered, and counts as lost only
//! what is dropped after that.
//!
//! # Bad input
//!
//! A [`MessageReader`], [`MessageWriter`] or [`MessageMutator`] of a type
//! never registered panics when its system runs, naming the message
//! type and the system, as bevy does; registration is not automatic.
//! [`World::write_message`] of an unregistered type logs an error and
//! returns `None`, as bevy's does. A
//! [`MessageWriter`] and a [`MessageReader`] (or two writers) of one type
//! in one system conflict on the `Messages<M>` resource: initialising the
//! system panics naming it, as bevy does; [`MessageMutator`] reads and
//! writes in one parameter.

mod cursor;
mod iterators;
mod messages;
mod params;
mod registry;
mod world;

pub use cursor::MessageCursor;
pub use iterators::{
    MessageIterator, MessageIteratorWithId, MessageMutIterator, MessageMutIteratorWithId,
    MessageMutParIter, MessageParIter,
};
pub use messages::{Messages, WriteBatchIds};
pub use params::{MessageMutator, MessageReader, MessageWriter, PopulatedMessageReader};
pub use registry::{
    message_update_condition, message_update_system, signal_message_update_system, MessageRegistry,
    MessageUpdateSystems, ShouldUpdateMessages,
};

pub use ecs_macros::Message;

use std::{
    cmp::Ordering,
    fmt,
    hash::{Hash, Hasher},
    marker::PhantomData,
};

#[cfg(doc)]
use crate::world::World;

/// A buffered message: written into [`Messages<M>`] and pulled by every
/// [`MessageReader<M>`] in write order, each reader seeing it once.
///
/// Derive it with `#[derive(Message)]`; see the [module docs](self) for
/// how long a message stays readable.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Message)]
/// struct Greeting(String);
///
/// fn greet(mut writer: MessageWriter<Greeting>) {
///     writer.write(Greeting("hello".to_string()));
/// }
///
/// fn listen(mut reader: MessageReader<Greeting>) {
///     for Greeting(text) in reader.read() {
///         println!("{text}");
///     }
/// }
/// # let mut world = World::new();
/// # world.add_message::<Greeting>();
/// # world.run_system_once(greet).unwrap();
/// # world.run_system_once(listen).unwrap();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `Message`",
    label = "invalid `Message`",
    note = "consider annotating `{Self}` with `#[derive(Message)]`"
)]
pub trait Message: Send + Sync + 'static {}

/// A message with the id it was written under.
#[derive(Debug)]
pub(crate) struct MessageInstance<M: Message> {
    pub(crate) message_id: MessageId<M>,
    pub(crate) message: M,
}

/// The number a message was written under in its [`Messages<M>`]: ids
/// grow by one per write, in write order.
///
/// Unlike bevy's, it has no `caller` field: this crate does not track
/// source locations of writes.
pub struct MessageId<M: Message> {
    /// The message's position in the write order of its buffer.
    pub id: usize,
    pub(crate) _marker: PhantomData<M>,
}

impl<M: Message> MessageId<M> {
    pub(crate) fn new(id: usize) -> Self {
        MessageId {
            id,
            _marker: PhantomData,
        }
    }
}

impl<M: Message> Copy for MessageId<M> {}

impl<M: Message> Clone for MessageId<M> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<M: Message> fmt::Display for MessageId<M> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        <Self as fmt::Debug>::fmt(self, f)
    }
}

impl<M: Message> fmt::Debug for MessageId<M> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let name = std::any::type_name::<M>();
        let short = name.rsplit("::").next().unwrap_or(name);
        write!(f, "message<{short}>#{}", self.id)
    }
}

impl<M: Message> PartialEq for MessageId<M> {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl<M: Message> Eq for MessageId<M> {}

impl<M: Message> PartialOrd for MessageId<M> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<M: Message> Ord for MessageId<M> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.id.cmp(&other.id)
    }
}

impl<M: Message> Hash for MessageId<M> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}
