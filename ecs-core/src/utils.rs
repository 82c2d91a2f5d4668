//! Small shared helpers: the pass-through `TypeId` hasher and panic
//! collection for type-erased drops.

use std::{
    any::{Any, TypeId},
    hash::{BuildHasherDefault, Hasher},
    panic::{catch_unwind, resume_unwind, AssertUnwindSafe},
};

/// A hasher for keys that are already well-distributed hashes (`TypeId`):
/// it passes the 64-bit value through instead of hashing it again.
#[derive(Default)]
pub(crate) struct PassThroughHasher(u64);

impl Hasher for PassThroughHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.0 ^= value;
    }

    // `TypeId` writes one u64 (or a u128 on some versions); any other
    // write is folded in so the hasher stays correct, if slower.
    #[inline]
    fn write_u128(&mut self, value: u128) {
        self.0 ^= (value as u64) ^ ((value >> 64) as u64);
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.0 = self.0.rotate_left(5) ^ u64::from_le_bytes(buf);
        }
    }
}

/// The text of a panic payload that is a message (`&str` or `String`).
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> Option<&str> {
    match payload.downcast_ref::<&'static str>() {
        Some(message) => Some(message),
        None => payload.downcast_ref::<String>().map(String::as_str),
    }
}

/// A caught panic of a system or observer, to go on with its name added.
/// The name goes to stderr (the panic hook printed the message where it
/// was raised, without it; a payload that goes on is not printed again),
/// and a message payload (`&str` or `String`) becomes the `String`
/// ``{kind} `{name}` panicked: {message}``, so a caller that catches it
/// reads the name too. Any other payload goes on as it is.
#[cold]
pub(crate) fn name_panic(
    kind: &str,
    name: &str,
    payload: Box<dyn Any + Send>,
) -> Box<dyn Any + Send> {
    eprintln!("{kind} `{name}` panicked");
    match panic_message(&*payload) {
        Some(message) => Box::new(format!("{kind} `{name}` panicked: {message}")),
        None => payload,
    }
}

/// The element of `list` at `index`, pushing `new()` when `index` is its
/// length: for refilling a list in place, element by element, reusing
/// what each element holds.
pub(crate) fn slot_at<T>(list: &mut Vec<T>, index: usize, new: impl FnOnce() -> T) -> &mut T {
    debug_assert!(index <= list.len());
    if index == list.len() {
        list.push(new());
    }
    &mut list[index]
}

/// The panic of an `Index` impl given an id its collection never handed
/// out: most likely an id taken from another world. It names the id (whose
/// `Debug` names its kind: `ArchetypeId(7)`), rather than a bare "index
/// out of bounds", and is out of line and as small at the call as the
/// bounds check's own panic, so the indexing costs what it did.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn unknown_id<I: std::fmt::Debug>(id: I, count: usize) -> ! {
    panic!(
        "{id:?} does not exist in this world, which has {count} of its kind: \
         was the id taken from another world?"
    )
}

/// A map keyed by `TypeId` that does not rehash the key.
pub(crate) type TypeIdMap<V> = hashbrown::HashMap<TypeId, V, BuildHasherDefault<PassThroughHasher>>;

/// Runs type-erased drops, hooks and lifecycle observers so that one that
/// panics neither stops the others nor leaves storage or an operation
/// half-done: each panic is caught, the first one is kept, and
/// [`DropPanics::finish`] re-raises it once the operation is whole.
///
/// The payload is boxed a second time so that the type is one thin
/// pointer: every structural operation makes an empty one, and an empty
/// `Option` of a fat box is a null written into half of a 16-byte value,
/// which the compiler may later copy whole; that read waits for the
/// narrower store (a store-forwarding stall on every structural
/// operation). Only a caught panic pays the second box.
#[derive(Default)]
pub(crate) struct DropPanics(Option<Box<Box<dyn Any + Send + 'static>>>);

impl DropPanics {
    /// Calls `drop(ptr)`, catching a panic.
    ///
    /// # Safety
    /// `ptr` must be valid for `drop` and must not be used after this call.
    #[inline]
    pub(crate) unsafe fn drop_value(&mut self, drop: unsafe fn(*mut u8), ptr: *mut u8) {
        // SAFETY: forwarded from the caller. A panic out of `drop` still
        // counts the value as dropped (drop glue of its fields has run).
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| unsafe { drop(ptr) })) {
            self.0.get_or_insert_with(|| Box::new(payload));
        }
    }

    /// Drops `value`, catching a panic of its `Drop`.
    #[inline]
    pub(crate) fn drop_owned<T>(&mut self, value: T) {
        if std::mem::needs_drop::<T>() {
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| drop(value))) {
                self.0.get_or_insert_with(|| Box::new(payload));
            }
        }
    }

    /// Runs `f`, catching a panic to re-raise with the others: a hook or
    /// an observer of a structural operation, which must not stop the
    /// operation half way.
    #[inline]
    pub(crate) fn catch(&mut self, f: impl FnOnce()) {
        if let Err(payload) = catch_unwind(AssertUnwindSafe(f)) {
            self.0.get_or_insert_with(|| Box::new(payload));
        }
    }

    /// Whether no panic was caught.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Re-raises the first caught panic, if any.
    #[inline]
    pub(crate) fn finish(self) {
        if let Some(payload) = self.0 {
            resume_unwind(*payload);
        }
    }
}

/// Calls `$m!()` with every prefix of the given identifiers: `$m!()`,
/// `$m!(A)`, `$m!(A, B)`, ... (tuple impls up to 16 elements).
macro_rules! all_tuples {
    ($m:ident; $($name:tt),*) => { $crate::utils::all_tuples!(@ $m; []; $($name),*); };
    (@ $m:ident; [$($done:tt),*]; ) => { $m!($($done),*); };
    (@ $m:ident; [$($done:tt),*]; $next:tt $(, $rest:tt)*) => {
        $m!($($done),*);
        $crate::utils::all_tuples!(@ $m; [$($done,)* $next]; $($rest),*);
    };
}
pub(crate) use all_tuples;

/// Like `all_tuples!`, without the empty tuple.
macro_rules! all_tuples_nonempty {
    ($m:ident; $first:tt $(, $name:tt)*) => { $crate::utils::all_tuples_nonempty!(@ $m; [$first]; $($name),*); };
    (@ $m:ident; [$($done:tt),*]; ) => { $m!($($done),*); };
    (@ $m:ident; [$($done:tt),*]; $next:tt $(, $rest:tt)*) => {
        $m!($($done),*);
        $crate::utils::all_tuples_nonempty!(@ $m; [$($done,)* $next]; $($rest),*);
    };
}
pub(crate) use all_tuples_nonempty;

/// `Option::unwrap` that is checked in debug builds (and under Miri) and
/// unchecked in release, for values an invariant guarantees.
pub(crate) trait DebugCheckedUnwrap {
    type Item;
    /// # Safety
    /// The value must be `Some`.
    unsafe fn debug_checked_unwrap(self) -> Self::Item;
}

impl<T> DebugCheckedUnwrap for Option<T> {
    type Item = T;
    #[inline(always)]
    #[track_caller]
    unsafe fn debug_checked_unwrap(self) -> T {
        if cfg!(debug_assertions) {
            self.expect("invariant violated: value must be present")
        } else {
            // SAFETY: guaranteed by the caller.
            unsafe { self.unwrap_unchecked() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::DropPanics;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    /// Two drops panic: both values count as dropped, and `finish`
    /// re-raises the first panic, not the last.
    #[test]
    fn drop_panics_keeps_the_first_panic() {
        unsafe fn first(_: *mut u8) {
            panic!("first bomb");
        }
        unsafe fn second(_: *mut u8) {
            panic!("second bomb");
        }
        let mut panics = DropPanics::default();
        assert!(panics.is_empty());
        // SAFETY: the drop functions never read the pointer.
        unsafe {
            panics.drop_value(first, std::ptr::null_mut());
            panics.drop_value(second, std::ptr::null_mut());
        }
        assert!(!panics.is_empty());
        let payload = catch_unwind(AssertUnwindSafe(|| panics.finish())).unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"first bomb"));
    }
}

/// A value that is `Sync` whatever `T` is, because shared access to the
/// cell gives no access to the value: it is reached only through
/// `&mut self` (or by value). Lets state that is `Send` but not `Sync` (a
/// `Cell`, an `mpsc::Sender`) live in a system, which the scheduler shares
/// across threads.
#[repr(transparent)]
pub struct SyncCell<T: ?Sized> {
    inner: T,
}

impl<T> SyncCell<T> {
    /// Wraps `inner`.
    #[inline]
    pub fn new(inner: T) -> Self {
        SyncCell { inner }
    }

    /// The value, unwrapped.
    #[inline]
    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<T: ?Sized> SyncCell<T> {
    /// The value, exclusively.
    #[inline]
    pub fn get(&mut self) -> &mut T {
        &mut self.inner
    }
}

// SAFETY: every accessor of the value takes `&mut self` or `self`, so a
// `&SyncCell<T>` shared between threads lets none of them reach `T`;
// whoever reaches `T` holds the only access to it.
unsafe impl<T: ?Sized> Sync for SyncCell<T> {}

impl<T: ?Sized> std::fmt::Debug for SyncCell<T> {
    // The value stays hidden: printing it would read it through `&self`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncCell").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod sync_cell_tests {
    use super::SyncCell;
    use std::cell::Cell;

    fn assert_sync<T: Sync>(_: &T) {}

    #[test]
    fn a_cell_in_a_sync_cell_is_sync_and_reached_through_mut() {
        let mut cell = SyncCell::new(Cell::new(1u32));
        assert_sync(&cell);
        cell.get().set(2);
        assert_eq!(format!("{cell:?}"), "SyncCell { .. }");
        std::thread::scope(|scope| {
            // Moved to another thread (it is `Send`), used there, moved back.
            let cell = scope
                .spawn(move || {
                    let value = cell.get();
                    value.set(value.get() + 1);
                    cell
                })
                .join()
                .unwrap();
            assert_eq!(cell.into_inner().get(), 3);
        });
    }
}
