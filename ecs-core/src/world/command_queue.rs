use std::{
    any::{Any, TypeId},
    mem::{size_of, MaybeUninit},
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

use super::{World, WorldId};
use crate::error::{BevyError, CommandOutput, ErrorContext};

/// A deferred change to the world, applied when its queue is.
///
/// A command may fail: its output is `()` or a `Result` whose error
/// converts into a [`BevyError`] (see [`CommandOutput`]).
/// [`Commands::queue`](crate::system::Commands::queue) hands such an
/// error to the world's error handler with [`ErrorContext::Command`].
///
/// ```
/// use ecs::prelude::*;
/// use ecs::system::Command;
///
/// #[derive(Resource)]
/// struct Gold(u32);
///
/// struct Spend(u32);
///
/// impl Command for Spend {
///     type Out = Result;
///
///     fn apply(self, world: &mut World) -> Result {
///         let mut gold = world.resource_mut::<Gold>();
///         gold.0 = gold.0.checked_sub(self.0).ok_or("not enough gold")?;
///         Ok(())
///     }
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Gold(5));
/// assert!(Spend(3).apply(&mut world).is_ok());
/// assert!(Spend(3).apply(&mut world).is_err());
/// ```
pub trait Command: Send + 'static {
    /// What [`apply`](Command::apply) returns: `()`, or a `Result`.
    type Out: CommandOutput;

    /// Applies the change.
    fn apply(self, world: &mut World) -> Self::Out;

    /// This command, with an error it returns handed to `error_handler`
    /// (with [`ErrorContext::Command`] naming the command's type).
    #[inline]
    fn handle_error_with(
        self,
        error_handler: impl FnOnce(BevyError, ErrorContext) + Send + 'static,
    ) -> impl Command<Out = ()>
    where
        Self: Sized,
    {
        move |world: &mut World| {
            if let Some(error) = self.apply(world).to_err() {
                error_handler(error, command_context::<Self>());
            }
        }
    }

    /// This command, with an error it returns handed to the world's error
    /// handler ([`World::fallback_error_handler`]).
    #[inline]
    fn handle_error(self) -> impl Command<Out = ()>
    where
        Self: Sized,
    {
        move |world: &mut World| {
            if let Some(error) = self.apply(world).to_err() {
                (world.fallback_error_handler())(error, command_context::<Self>());
            }
        }
    }

    /// This command, with an error it returns dropped.
    #[inline]
    fn ignore_error(self) -> impl Command<Out = ()>
    where
        Self: Sized,
    {
        move |world: &mut World| {
            let _ = self.apply(world);
        }
    }
}

/// The context of an error returned by the command `C`.
fn command_context<C>() -> ErrorContext {
    ErrorContext::Command {
        name: std::any::type_name::<C>().into(),
    }
}

impl<F, Out> Command for F
where
    F: FnOnce(&mut World) -> Out + Send + 'static,
    Out: CommandOutput,
{
    type Out = Out;

    fn apply(self, world: &mut World) -> Out {
        self(world)
    }
}

/// How to apply or drop the command that follows in the buffer, and how
/// many bytes it takes.
#[derive(Clone, Copy)]
struct CommandMeta {
    size: usize,
    /// # Safety
    /// `ptr` points to an unaligned, owned value of the command's type.
    /// With a world, the command is applied; without, it is dropped.
    /// Returns [`Consumed::Partly`] when a run kept entries to apply
    /// later: the bytes are still an owned run, to be consumed again.
    consume: unsafe fn(ptr: *mut MaybeUninit<u8>, world: Option<&mut World>) -> Consumed,
}

/// What consuming a command left in its bytes.
enum Consumed {
    /// Nothing: the command was applied or dropped.
    Whole,
    /// A run with entries still to apply.
    Partly,
    /// A run one of whose entries panicked, with entries still to apply:
    /// it keeps them, and the panic goes on.
    PanickedPartly(Box<dyn Any + Send>),
}

/// # Safety
/// `ptr` points to an unaligned, owned `C`.
unsafe fn consume_command<C: Command<Out = ()>>(
    ptr: *mut MaybeUninit<u8>,
    world: Option<&mut World>,
) -> Consumed {
    // SAFETY: guaranteed by the caller; the value is read out once.
    let command = unsafe { ptr.cast::<C>().read_unaligned() };
    match world {
        Some(world) => command.apply(world),
        None => drop(command),
    }
    Consumed::Whole
}

/// A command made of entries pushed one at a time
/// ([`CommandQueue::push_run_entry`]): consecutive pushes of the same run
/// type with nothing queued between them land in one command, stored in
/// place in the queue's buffer, so applying it can share work (a lookup,
/// a reservation) between its entries.
///
/// ```text
/// bytes: ... [meta][RunHeader { done, len }][entry 0][entry 1] ...
/// ```
///
/// A run applies its entries in order, as the commands they stand for
/// would. It may stop after any entry, as it must after one whose hooks or
/// observers queued commands: the queue keeps the rest of the run as its
/// next command, so the world applies those commands first, just as it
/// would have between two commands.
pub(crate) trait CommandRun: 'static {
    /// What one push adds.
    type Entry: Send + 'static;

    /// Applies at least one entry, taking each with
    /// [`RunEntries::next_entry`], in order.
    fn apply_some(entries: &mut RunEntries<'_, Self::Entry>, world: &mut World);
}

/// The progress of a run, before its entries.
#[derive(Clone, Copy)]
struct RunHeader {
    /// The entries already taken (applied or dropped).
    done: usize,
    /// The entries pushed.
    len: usize,
}

/// The entries of a run being applied: each taken once, in order.
pub(crate) struct RunEntries<'a, E> {
    /// The first entry; entries are unaligned, back to back.
    first: *mut E,
    next: usize,
    len: usize,
    _entries: std::marker::PhantomData<&'a mut E>,
}

impl<E> RunEntries<'_, E> {
    /// Takes the next entry, if any.
    #[inline]
    pub(crate) fn next_entry(&mut self) -> Option<E> {
        if self.next == self.len {
            return None;
        }
        // SAFETY: entries `next..len` are owned, unaligned `E`s (type
        // invariant); moving `next` past this one makes this read its only
        // use.
        let entry = unsafe { self.first.add(self.next).read_unaligned() };
        self.next += 1;
        Some(entry)
    }

    /// How many entries are left.
    #[inline]
    pub(crate) fn remaining(&self) -> usize {
        self.len - self.next
    }

    /// Drops every entry left, each once, catching their panics; returns
    /// the first.
    fn drop_rest(&mut self) -> Option<Box<dyn Any + Send>> {
        let mut panicked = None;
        while let Some(entry) = self.next_entry() {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| drop(entry))) {
                panicked.get_or_insert(payload);
            }
        }
        panicked
    }
}

/// # Safety
/// `ptr` points to an unaligned, owned run of `R`: a [`RunHeader`], then
/// its `len` entries, of which the first `done` were taken.
unsafe fn consume_run<R: CommandRun>(
    ptr: *mut MaybeUninit<u8>,
    world: Option<&mut World>,
) -> Consumed {
    let header_ptr = ptr.cast::<RunHeader>();
    // SAFETY: a header starts the run (caller).
    let header = unsafe { header_ptr.read_unaligned() };
    let mut entries = RunEntries {
        // SAFETY: the entries follow the header, within the run (caller).
        first: unsafe { ptr.add(size_of::<RunHeader>()) }.cast::<R::Entry>(),
        next: header.done,
        len: header.len,
        _entries: std::marker::PhantomData,
    };
    let Some(world) = world else {
        return match entries.drop_rest() {
            Some(payload) => resume_unwind(payload),
            None => Consumed::Whole,
        };
    };
    let applied = catch_unwind(AssertUnwindSafe(|| {
        R::apply_some(&mut entries, world);
        assert!(
            entries.next > header.done,
            "the command run `{}` applied no entry",
            std::any::type_name::<R>()
        );
    }));
    if let Err(payload) = applied {
        if entries.next == header.done {
            // It failed before taking an entry, and would again: the run is
            // consumed, what it holds dropped (those panics second).
            let _ = entries.drop_rest();
            resume_unwind(payload);
        }
        if entries.remaining() == 0 {
            resume_unwind(payload);
        }
        // The entries taken count as consumed; the rest stay, as the
        // commands after a panicking one do (applied by a later flush, or
        // dropped by a queue that drops what follows a panic).
        let header = RunHeader {
            done: entries.next,
            ..header
        };
        // SAFETY: the header is where it was read from; the entries from
        // `done` on are still owned by the run.
        unsafe { header_ptr.write_unaligned(header) };
        return Consumed::PanickedPartly(payload);
    }
    if entries.remaining() == 0 {
        return Consumed::Whole;
    }
    let header = RunHeader {
        done: entries.next,
        ..header
    };
    // SAFETY: the header is where it was read from; the entries from
    // `done` on are still owned by the run.
    unsafe { header_ptr.write_unaligned(header) };
    Consumed::Partly
}

/// Where the last command pushed onto a queue starts, if it is a run that
/// a further entry may join.
#[derive(Clone, Copy)]
struct OpenRun {
    run: TypeId,
    /// The offset of its [`CommandMeta`].
    offset: usize,
}

/// A list of commands, stored back to back in one byte buffer: pushing a
/// command copies it (and a small header) into the buffer, with no heap
/// allocation per command once the buffer has grown.
///
/// ```text
/// bytes: [meta A][A's fields][meta B][B's fields] ...   (unaligned)
/// ```
///
/// A queue on which [`Commands`](crate::system::Commands) of a world were made
/// belongs to that world while it holds commands, until it is applied or
/// emptied: its commands may name entities of that world (some reserved
/// in it, even by a `Commands` that pushed nothing, as `spawn_empty`
/// does), so applying them to another world, or mixing in commands for
/// another world, panics and leaves the queue as it was. A queue only ever
/// pushed to directly ([`CommandQueue::push`]) belongs to no world.
#[derive(Default)]
pub struct CommandQueue {
    bytes: Vec<MaybeUninit<u8>>,
    /// The world whose `Commands` were last made on the queue, if any
    /// were; it counts only while the queue holds commands.
    world: Option<WorldId>,
    /// The last command, while it is a run that can take more entries.
    open_run: Option<OpenRun>,
}

// SAFETY: every command pushed is `Send`, so moving the buffer of them to
// another thread is fine; `&CommandQueue` exposes nothing.
unsafe impl Send for CommandQueue {}
// SAFETY: as above; a shared queue can only be inspected (len).
unsafe impl Sync for CommandQueue {}

impl std::fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandQueue")
            .field("bytes", &self.bytes.len())
            .field("world", &self.world)
            .finish()
    }
}

impl CommandQueue {
    /// Queues a command.
    #[inline]
    pub fn push<C: Command<Out = ()>>(&mut self, command: C) {
        self.open_run = None;
        let meta = CommandMeta {
            size: size_of::<C>(),
            consume: consume_command::<C>,
        };
        self.push_with_meta(meta, command);
    }

    /// Appends `meta` and `value`, which `meta` consumes, to the buffer;
    /// returns the offset of `meta`.
    #[inline]
    fn push_with_meta<T>(&mut self, meta: CommandMeta, value: T) -> usize {
        debug_assert_eq!(meta.size, size_of::<T>());
        let old_len = self.bytes.len();
        self.bytes
            .reserve(size_of::<CommandMeta>() + size_of::<T>());
        // SAFETY: room for the header and the value was reserved past
        // `old_len`; both are written unaligned; then the length covers
        // them. The value is moved into the buffer (not dropped here).
        unsafe {
            let end = self.bytes.as_mut_ptr().add(old_len);
            end.cast::<CommandMeta>().write_unaligned(meta);
            end.add(size_of::<CommandMeta>())
                .cast::<T>()
                .write_unaligned(value);
            self.bytes
                .set_len(old_len + size_of::<CommandMeta>() + size_of::<T>());
        }
        old_len
    }

    /// Queues `entry` as part of a run of `R`: it joins the last command
    /// if that is a run of `R` (nothing was queued since), or starts one.
    #[inline]
    pub(crate) fn push_run_entry<R: CommandRun>(&mut self, entry: R::Entry) {
        match self.open_run {
            Some(open) if open.run == TypeId::of::<R>() => self.grow_run(open.offset, entry),
            _ => self.start_run::<R>(entry),
        }
    }

    /// Starts a run of `R` with `entry`.
    #[inline]
    fn start_run<R: CommandRun>(&mut self, entry: R::Entry) {
        let meta = CommandMeta {
            size: size_of::<RunHeader>(),
            consume: consume_run::<R>,
        };
        let offset = self.push_with_meta(meta, RunHeader { done: 0, len: 0 });
        self.grow_run(offset, entry);
        self.open_run = Some(OpenRun {
            run: TypeId::of::<R>(),
            offset,
        });
    }

    /// Appends `entry` to the run whose meta is at `offset`, the last
    /// command of the buffer.
    #[inline]
    fn grow_run<E>(&mut self, offset: usize, entry: E) {
        let old_len = self.bytes.len();
        self.bytes.reserve(size_of::<E>());
        // SAFETY: the run starts at `offset` with its meta and header and
        // ends at `old_len` (it is the last command, and its entries are
        // `E`s: `open_run` names its type); room for one more entry was
        // reserved past `old_len`; the sizes are updated with the length,
        // after the entry is moved in.
        unsafe {
            let base = self.bytes.as_mut_ptr();
            let meta_ptr = base.add(offset).cast::<CommandMeta>();
            let header_ptr = base
                .add(offset + size_of::<CommandMeta>())
                .cast::<RunHeader>();
            let mut meta = meta_ptr.read_unaligned();
            let mut header = header_ptr.read_unaligned();
            debug_assert_eq!(
                offset + size_of::<CommandMeta>() + meta.size,
                old_len,
                "an open run is the last command"
            );
            base.add(old_len).cast::<E>().write_unaligned(entry);
            meta.size += size_of::<E>();
            header.len += 1;
            meta_ptr.write_unaligned(meta);
            header_ptr.write_unaligned(header);
            self.bytes.set_len(old_len + size_of::<E>());
        }
    }

    /// Whether no command is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Binds the queue to the world whose `Commands` are about to push to
    /// it.
    ///
    /// # Panics
    /// If it holds commands recorded for another world.
    #[inline]
    #[track_caller]
    pub(crate) fn bind_world(&mut self, world: WorldId) {
        self.bind(world, "record commands for");
    }

    /// The world the queue is bound to, if any.
    #[inline]
    pub(crate) fn world_id(&self) -> Option<WorldId> {
        self.world
    }

    #[inline]
    #[track_caller]
    fn bind(&mut self, world: WorldId, action: &str) {
        self.check_world(world, action);
        self.world = Some(world);
    }

    /// Panics if the queue holds commands recorded for a world other than
    /// `world`.
    #[inline]
    #[track_caller]
    fn check_world(&self, world: WorldId, action: &str) {
        match self.world {
            Some(bound) if bound != world && !self.is_empty() => other_world(action, bound, world),
            _ => {}
        }
    }

    /// Applies every command in the order queued, then empties the queue
    /// (keeping its memory). Entities reserved by the commands are made
    /// live first.
    ///
    /// If a command panics, the commands after it are dropped unapplied and
    /// the panic goes on.
    ///
    /// # Panics
    /// If the queue holds commands that [`Commands`](crate::system::Commands) of
    /// another world recorded (they would touch unrelated entities of this
    /// one); the queue is left as it was.
    pub fn apply(&mut self, world: &mut World) {
        self.check_world(world.id(), "apply them to");
        world.flush_entities();
        if let Some(payload) = self.consume(Some(world)) {
            resume_unwind(payload);
        }
    }

    /// Moves every command of `other` to the end of this queue.
    ///
    /// # Panics
    /// If the two hold commands recorded for different worlds; both are
    /// left as they were.
    pub fn append(&mut self, other: &mut CommandQueue) {
        if other.is_empty() {
            return;
        }
        if let Some(theirs) = other.world {
            self.bind(theirs, "append commands recorded for");
        }
        self.bytes.append(&mut other.bytes);
        other.world = None;
        // Runs stay apart across queues.
        self.open_run = None;
        other.open_run = None;
    }

    /// Applies (with a world) or drops every command, emptying the queue.
    /// A panic in one is caught so that the rest are still dropped, never
    /// leaked; the first panic is returned.
    fn consume(&mut self, mut world: Option<&mut World>) -> Option<Box<dyn Any + Send>> {
        let mut cursor = self.take_cursor();
        let mut panicked = None;
        // The commands name entities of this world.
        let world_id = world.as_ref().map(|world| world.id());
        while !cursor.is_empty() {
            // Applied while no command has panicked; dropped otherwise.
            let world = match (&mut world, &panicked) {
                (Some(world), None) => Some(&mut **world),
                _ => None,
            };
            let result = catch_unwind(AssertUnwindSafe(|| {
                let replaced = cursor.consume_next(world);
                if let (Some(was), Some(now)) = (world_id, replaced) {
                    if was != now {
                        replaced_while_applying(was, now);
                    }
                }
            }));
            if let Err(payload) = result {
                // Only the first panic goes on; later ones are dropped.
                panicked.get_or_insert(payload);
            }
        }
        // Keep the memory for the next commands.
        self.bytes = cursor.into_bytes();
        panicked
    }

    /// Takes every command out, leaving the queue empty, to be consumed one
    /// at a time.
    pub(crate) fn take_cursor(&mut self) -> CommandCursor {
        self.world = None;
        self.open_run = None;
        let mut bytes = std::mem::take(&mut self.bytes);
        let end = bytes.len();
        // The commands now belong to the cursor: with the length at zero
        // no command can be consumed twice, whatever happens.
        // SAFETY: the bytes stay in place (capacity is unchanged); only the
        // cursor reads them.
        unsafe { bytes.set_len(0) };
        CommandCursor {
            bytes,
            next: 0,
            end,
        }
    }
}

/// The commands taken out of a queue, consumed (applied or dropped) one at
/// a time, in order. Dropping it drops the commands left.
pub(crate) struct CommandCursor {
    /// Length zero: the commands sit in its spare capacity, from `next` to
    /// `end`, owned by the cursor.
    bytes: Vec<MaybeUninit<u8>>,
    next: usize,
    end: usize,
}

impl CommandCursor {
    /// Whether every command was consumed.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.next == self.end
    }

    /// Applies the next command.
    ///
    /// # Panics
    /// If the cursor is empty, or the command panics (it counts as
    /// consumed; a run keeps the entries after the one that panicked).
    pub(crate) fn apply_next(&mut self, world: &mut World) {
        assert!(!self.is_empty(), "no command left to apply");
        self.consume_next(Some(world));
    }

    /// Drops every command left, each once; returns the first panic of
    /// their drops.
    pub(crate) fn drop_rest(&mut self) -> Option<Box<dyn Any + Send>> {
        let mut panicked = None;
        while !self.is_empty() {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| {
                self.consume_next(None);
            })) {
                panicked.get_or_insert(payload);
            }
        }
        panicked
    }

    /// Applies (with a world) or drops the next command; the cursor must
    /// not be empty. Returns the id of the world after the command (which
    /// may have swapped its contents for another's).
    fn consume_next(&mut self, mut world: Option<&mut World>) -> Option<WorldId> {
        debug_assert!(!self.is_empty());
        let base = self.bytes.as_mut_ptr();
        // SAFETY: a header starts at `next` (headers and commands are
        // written back to back by `push`, and `next` moves past whole
        // pairs), within the capacity.
        let meta = unsafe { base.add(self.next).cast::<CommandMeta>().read_unaligned() };
        // SAFETY: the command of that header follows it.
        let command = unsafe { base.add(self.next + size_of::<CommandMeta>()) };
        let start = self.next;
        // Moved past first: a command that panics is not consumed again.
        self.next += size_of::<CommandMeta>() + meta.size;
        // SAFETY: the command is an owned value of the type `meta` was made
        // for, and `next` has left it behind, so this is its one use.
        match unsafe { (meta.consume)(command, world.as_deref_mut()) } {
            Consumed::Whole => {}
            // A run kept entries for later: it is the next command again.
            Consumed::Partly => self.next = start,
            Consumed::PanickedPartly(payload) => {
                self.next = start;
                resume_unwind(payload);
            }
        }
        world.map(|world| world.id())
    }

    /// The buffer, for reuse; the cursor must be empty.
    fn into_bytes(mut self) -> Vec<MaybeUninit<u8>> {
        // The buffer still owns the commands left: it must not go.
        assert!(self.is_empty(), "commands left in the cursor");
        std::mem::take(&mut self.bytes)
    }

    /// The commands left, moved (unapplied) into a queue of their own,
    /// in order.
    pub(crate) fn into_rest(mut self) -> CommandQueue {
        let rest = self.end - self.next;
        let mut bytes: Vec<MaybeUninit<u8>> = Vec::with_capacity(rest);
        // SAFETY: the cursor owns the commands in `next..end`, whole
        // headers and commands back to back; they are copied bitwise to the
        // start of the new buffer, which takes them over (commands are
        // stored unaligned, so any address holds them), and the cursor
        // then counts them consumed, so it drops none of them.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.bytes.as_ptr().add(self.next),
                bytes.as_mut_ptr(),
                rest,
            );
            bytes.set_len(rest);
        }
        self.next = self.end;
        CommandQueue {
            bytes,
            world: None,
            open_run: None,
        }
    }

    /// An empty queue reusing the cursor's memory; the cursor must be
    /// empty.
    pub(crate) fn into_queue(self) -> CommandQueue {
        CommandQueue {
            bytes: self.into_bytes(),
            world: None,
            open_run: None,
        }
    }
}

impl Drop for CommandCursor {
    fn drop(&mut self) {
        if let Some(payload) = self.drop_rest() {
            // As for a queue: a drop panic during another panic is
            // swallowed rather than aborting.
            if !std::thread::panicking() {
                resume_unwind(payload);
            }
        }
    }
}

#[cold]
#[inline(never)]
fn replaced_while_applying(was: WorldId, now: WorldId) -> ! {
    panic!(
        "a command replaced the world ({was:?}) with another ({now:?}) while a CommandQueue applied; \
         the commands left belong to the first and are dropped unapplied"
    )
}

#[cold]
#[track_caller]
fn other_world(action: &str, bound: WorldId, world: WorldId) -> ! {
    panic!(
        "this CommandQueue holds commands recorded for world {bound:?}; cannot {action} world {world:?}: \
         they name entities of the first world (some reserved in it), and would touch unrelated \
         entities of the other. Apply the queue to its own world first"
    )
}

impl Drop for CommandQueue {
    fn drop(&mut self) {
        if !self.bytes.is_empty() {
            log::warn!("a CommandQueue with unapplied commands was dropped; the commands are dropped unapplied");
        }
        if let Some(payload) = self.consume(None) {
            // Every command is dropped; a panic of one goes on unless the
            // queue is dropped during another panic (which would abort).
            if !std::thread::panicking() {
                resume_unwind(payload);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    };

    struct Counted(Arc<AtomicUsize>, #[allow(dead_code)] [u8; 3]);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn commands_apply_in_order_and_drop_once() {
        let mut world = World::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut queue = CommandQueue::default();
        for i in 0..10u64 {
            let (log, held) = (log.clone(), Counted(drops.clone(), [1, 2, 3]));
            // Odd-sized captures exercise unaligned storage.
            let odd: (u8, u64) = (i as u8, i * 1000);
            queue.push(move |_: &mut World| {
                let _held = &held;
                log.lock().unwrap().push(odd.1);
            });
        }
        assert!(!queue.is_empty());
        queue.apply(&mut world);
        assert!(queue.is_empty());
        assert_eq!(
            *log.lock().unwrap(),
            (0..10).map(|i| i * 1000).collect::<Vec<_>>()
        );
        assert_eq!(drops.load(Ordering::SeqCst), 10);
        // Unapplied commands are dropped with the queue.
        let mut queue = CommandQueue::default();
        let held = Counted(drops.clone(), [0; 3]);
        queue.push(move |_: &mut World| drop(held));
        drop(queue);
        assert_eq!(drops.load(Ordering::SeqCst), 11);
    }

    #[test]
    fn a_panicking_command_drops_the_rest_once() {
        let mut world = World::new();
        let drops = Arc::new(AtomicUsize::new(0));
        let mut queue = CommandQueue::default();
        let first = Counted(drops.clone(), [0; 3]);
        queue.push(move |_: &mut World| drop(first));
        queue.push(|_: &mut World| panic!("command failed"));
        let rest = Counted(drops.clone(), [0; 3]);
        queue.push(move |_: &mut World| drop(rest));
        let result = catch_unwind(AssertUnwindSafe(|| queue.apply(&mut world)));
        assert!(result.is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 2);
        assert!(queue.is_empty());
        queue.push(|w: &mut World| {
            w.spawn_empty();
        });
        queue.apply(&mut world);
        assert_eq!(world.entity_count(), 1);
    }

    /// A run whose entries panic: one that fails before taking any entry,
    /// one that takes one and fails on it.
    struct FailingRun<const TAKE_FIRST: bool>;
    impl<const TAKE_FIRST: bool> CommandRun for FailingRun<TAKE_FIRST> {
        type Entry = Counted;
        fn apply_some(entries: &mut RunEntries<'_, Counted>, _: &mut World) {
            if TAKE_FIRST {
                drop(entries.next_entry());
            }
            panic!("run failed");
        }
    }

    /// In the world's flush, a run failing on an entry keeps the entries
    /// after it for the next flush; one failing before taking any is
    /// consumed whole, so it cannot fail again at every flush. Each entry
    /// is dropped once.
    #[test]
    fn a_failing_run_keeps_only_the_entries_after_one_it_took() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut world = World::new();
        for _ in 0..3 {
            world
                .command_queue
                .get_mut()
                .push_run_entry::<FailingRun<true>>(Counted(drops.clone(), [0; 3]));
        }
        assert!(catch_unwind(AssertUnwindSafe(|| world.flush_commands())).is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        assert!(
            !world.command_queue.get_mut().is_empty(),
            "two entries kept"
        );
        assert!(catch_unwind(AssertUnwindSafe(|| world.flush_commands())).is_err());
        assert!(catch_unwind(AssertUnwindSafe(|| world.flush_commands())).is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 3);
        assert!(world.command_queue.get_mut().is_empty());

        for _ in 0..3 {
            world
                .command_queue
                .get_mut()
                .push_run_entry::<FailingRun<false>>(Counted(drops.clone(), [0; 3]));
        }
        assert!(catch_unwind(AssertUnwindSafe(|| world.flush_commands())).is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 6);
        assert!(world.command_queue.get_mut().is_empty());
        world.flush_commands();
    }
}
