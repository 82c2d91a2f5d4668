use std::{
    mem::{size_of, MaybeUninit},
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

use crate::world::World;

/// A deferred change to the world, applied when its queue is.
pub trait Command: Send + 'static {
    /// Applies the change.
    fn apply(self, world: &mut World);
}

impl<F: FnOnce(&mut World) + Send + 'static> Command for F {
    fn apply(self, world: &mut World) {
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
    consume: unsafe fn(ptr: *mut MaybeUninit<u8>, world: Option<&mut World>),
}

/// # Safety
/// `ptr` points to an unaligned, owned `C`.
unsafe fn consume_command<C: Command>(ptr: *mut MaybeUninit<u8>, world: Option<&mut World>) {
    // SAFETY: guaranteed by the caller; the value is read out once.
    let command = unsafe { ptr.cast::<C>().read_unaligned() };
    match world {
        Some(world) => command.apply(world),
        None => drop(command),
    }
}

/// A list of commands, stored back to back in one byte buffer: pushing a
/// command copies it (and a small header) into the buffer, with no heap
/// allocation per command once the buffer has grown.
///
/// ```text
/// bytes: [meta A][A's fields][meta B][B's fields] ...   (unaligned)
/// ```
#[derive(Default)]
pub struct CommandQueue {
    bytes: Vec<MaybeUninit<u8>>,
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
            .finish()
    }
}

impl CommandQueue {
    /// Queues a command.
    #[inline]
    pub fn push<C: Command>(&mut self, command: C) {
        let meta = CommandMeta {
            size: size_of::<C>(),
            consume: consume_command::<C>,
        };
        let old_len = self.bytes.len();
        self.bytes
            .reserve(size_of::<CommandMeta>() + size_of::<C>());
        // SAFETY: room for the header and the command was reserved past
        // `old_len`; both are written unaligned; then the length covers
        // them. The command is moved into the buffer (not dropped here).
        unsafe {
            let end = self.bytes.as_mut_ptr().add(old_len);
            end.cast::<CommandMeta>().write_unaligned(meta);
            end.add(size_of::<CommandMeta>())
                .cast::<C>()
                .write_unaligned(command);
            self.bytes
                .set_len(old_len + size_of::<CommandMeta>() + size_of::<C>());
        }
    }

    /// Whether no command is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Applies every command in the order queued, then empties the queue
    /// (keeping its memory). Entities reserved by the commands are made
    /// live first.
    ///
    /// If a command panics, the commands after it are dropped unapplied and
    /// the panic goes on.
    pub fn apply(&mut self, world: &mut World) {
        world.flush();
        self.consume(Some(world));
    }

    /// Moves every command of `other` to the end of this queue.
    pub fn append(&mut self, other: &mut CommandQueue) {
        self.bytes.append(&mut other.bytes);
    }

    fn consume(&mut self, mut world: Option<&mut World>) {
        let len = self.bytes.len();
        // The commands now belong to this loop: with the length at zero no
        // command can run twice, whatever happens.
        // SAFETY: the bytes stay in place (capacity is unchanged); only the
        // loop below reads them.
        unsafe { self.bytes.set_len(0) };
        let base = self.bytes.as_mut_ptr();
        let mut cursor = 0;
        let mut panicked = None;
        while cursor < len {
            // SAFETY: a header starts at `cursor` (headers and commands are
            // written back to back by `push`).
            let meta = unsafe { base.add(cursor).cast::<CommandMeta>().read_unaligned() };
            cursor += size_of::<CommandMeta>();
            // SAFETY: the command of that header follows it, owned by us.
            let command = unsafe { base.add(cursor) };
            cursor += meta.size;
            match (&mut world, &panicked) {
                (Some(world), None) => {
                    // SAFETY: each command is consumed exactly once.
                    let result = catch_unwind(AssertUnwindSafe(|| unsafe {
                        (meta.consume)(command, Some(world))
                    }));
                    if let Err(payload) = result {
                        panicked = Some(payload);
                    }
                }
                // SAFETY: as above: dropped (no world, or after a panic).
                _ => unsafe { (meta.consume)(command, None) },
            }
        }
        if let Some(payload) = panicked {
            resume_unwind(payload);
        }
    }
}

impl Drop for CommandQueue {
    fn drop(&mut self) {
        if !self.bytes.is_empty() {
            log::warn!("a CommandQueue with unapplied commands was dropped; the commands are dropped unapplied");
        }
        self.consume(None);
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
}
