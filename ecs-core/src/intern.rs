//! Interning: one `'static` copy of each distinct value, shared by handles
//! that compare and hash by address.
//!
//! ```text
//! Interner<T> (RwLock<set of &'static T>)
//!   intern(&value) ──▶ equal value already in the set? ── yes ─▶ Interned(that reference)
//!                                                      └─ no ──▶ leak a copy, add it, Interned(copy)
//! ```
//!
//! An [`Interned<T>`] is a `Copy` pointer: comparing or hashing two of them
//! never looks at the values, so a label of any size costs what an integer
//! costs as a map key. The copies live until the program ends; interning is
//! for small sets of values, such as [schedule labels](crate::schedule::ScheduleLabel).

use std::fmt::Debug;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash, Hasher};
use std::ops::Deref;
use std::sync::{PoisonError, RwLock};

/// A value interned by an [`Interner`]: a `'static` reference that lives
/// until the program ends and is never dropped.
///
/// Two `Interned` compare equal when they point at the same value, so
/// `Interned<T>` is [`Eq`] and [`Hash`] in constant time. Values interned
/// by the same interner are equal exactly when the values are; values from
/// two interners are never equal.
///
/// ```
/// use ecs::intern::{Interned, Interner};
///
/// let interner: Interner<str> = Interner::new();
/// let a: Interned<str> = interner.intern("FixedUpdate");
/// let b = interner.intern(&String::from("FixedUpdate"));
/// assert_eq!(a, b);
/// assert!(std::ptr::eq(a.0, b.0));
/// assert_eq!(&*a, "FixedUpdate");
/// ```
// Never `Borrow<T>`: equal values from two interners hash differently.
pub struct Interned<T: ?Sized + Internable + 'static>(pub &'static T);

impl<T: ?Sized + Internable> Deref for Interned<T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.0
    }
}

impl<T: ?Sized + Internable> Clone for Interned<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized + Internable> Copy for Interned<T> {}

impl<T: ?Sized + Internable> PartialEq for Interned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.ref_eq(other.0)
    }
}

impl<T: ?Sized + Internable> Eq for Interned<T> {}

// Must agree with `PartialEq`: both look at the reference only.
impl<T: ?Sized + Internable> Hash for Interned<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.ref_hash(state);
    }
}

impl<T: ?Sized + Internable + Debug> Debug for Interned<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: ?Sized + Internable> From<&Interned<T>> for Interned<T> {
    fn from(value: &Interned<T>) -> Self {
        *value
    }
}

/// A value an [`Interner`] can intern: it can make a `'static` copy of
/// itself, and compare and hash references by identity.
///
/// ```
/// use std::hash::{Hash, Hasher};
/// use ecs::intern::{Internable, Interner};
///
/// #[derive(PartialEq, Eq, Hash, Debug)]
/// struct Tag(u32);
///
/// impl Internable for Tag {
///     fn leak(&self) -> &'static Self {
///         Box::leak(Box::new(Tag(self.0)))
///     }
///     fn ref_eq(&self, other: &Self) -> bool {
///         std::ptr::eq(self, other)
///     }
///     fn ref_hash<H: Hasher>(&self, state: &mut H) {
///         std::ptr::hash(self, state);
///     }
/// }
///
/// let interner = Interner::new();
/// assert_eq!(interner.intern(&Tag(1)), interner.intern(&Tag(1)));
/// assert_ne!(interner.intern(&Tag(1)), interner.intern(&Tag(2)));
/// ```
pub trait Internable: Hash + Eq {
    /// A `'static` copy of `self`, usually leaked.
    fn leak(&self) -> &'static Self;

    /// Whether `self` and `other` are the same value in memory.
    fn ref_eq(&self, other: &Self) -> bool;

    /// Feeds the reference (not the value) to `state`.
    fn ref_hash<H: Hasher>(&self, state: &mut H);
}

impl Internable for str {
    fn leak(&self) -> &'static Self {
        Box::leak(self.to_owned().into_boxed_str())
    }

    fn ref_eq(&self, other: &Self) -> bool {
        self.as_ptr() == other.as_ptr() && self.len() == other.len()
    }

    fn ref_hash<H: Hasher>(&self, state: &mut H) {
        self.len().hash(state);
        self.as_ptr().hash(state);
    }
}

/// A thread-safe interner: turns `&T` into an [`Interned<T>`], the same
/// one for equal values.
///
/// It is usually a `static` (its constructor is `const`); each value it
/// sees for the first time is leaked once. Lookups of known values take a
/// read lock only.
///
/// ```
/// use ecs::intern::Interner;
///
/// static NAMES: Interner<str> = Interner::new();
///
/// let a = NAMES.intern("player");
/// assert_eq!(a, NAMES.intern("player"));
/// assert_ne!(a, NAMES.intern("enemy"));
/// ```
pub struct Interner<T: ?Sized + 'static>(
    RwLock<hashbrown::HashSet<&'static T, BuildHasherDefault<DefaultHasher>>>,
);

impl<T: ?Sized> Interner<T> {
    /// An empty interner.
    pub const fn new() -> Self {
        Interner(RwLock::new(hashbrown::HashSet::with_hasher(
            BuildHasherDefault::new(),
        )))
    }
}

impl<T: Internable + ?Sized> Interner<T> {
    /// The [`Interned<T>`] for `value`: the one returned before for an
    /// equal value, or a new one holding a leaked copy of `value`.
    pub fn intern(&self, value: &T) -> Interned<T> {
        // A panic elsewhere while a lock was held cannot leave the set half
        // changed (insert is the only write), so a poisoned lock is usable.
        if let Some(known) = self
            .0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(value)
        {
            return Interned(*known);
        }
        let mut set = self.0.write().unwrap_or_else(PoisonError::into_inner);
        // Another thread may have interned it between the two locks.
        if let Some(known) = set.get(value) {
            return Interned(*known);
        }
        let leaked = value.leak();
        set.insert(leaked);
        Interned(leaked)
    }
}

impl<T: ?Sized> Default for Interner<T> {
    fn default() -> Self {
        Interner::new()
    }
}

#[cfg(test)]
mod tests {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::{Internable, Interned, Interner};

    /// Counts its leaks, to show each distinct value is leaked once.
    #[derive(PartialEq, Eq, Hash, Debug)]
    struct Counted(u32);

    static LEAKS: AtomicUsize = AtomicUsize::new(0);

    impl Internable for Counted {
        fn leak(&self) -> &'static Self {
            LEAKS.fetch_add(1, Ordering::SeqCst);
            Box::leak(Box::new(Counted(self.0)))
        }
        fn ref_eq(&self, other: &Self) -> bool {
            std::ptr::eq(self, other)
        }
        fn ref_hash<H: Hasher>(&self, state: &mut H) {
            std::ptr::hash(self, state);
        }
    }

    #[test]
    fn equal_values_share_one_leak() {
        static INTERNER: Interner<Counted> = Interner::new();
        let before = LEAKS.load(Ordering::SeqCst);
        let a = INTERNER.intern(&Counted(7));
        let b = INTERNER.intern(&Counted(7));
        let c = INTERNER.intern(&Counted(8));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(LEAKS.load(Ordering::SeqCst) - before, 2);
        assert_eq!(*a, Counted(7));
    }

    #[test]
    fn two_interners_never_agree() {
        static FIRST: Interner<str> = Interner::new();
        static SECOND: Interner<str> = Interner::new();
        assert_ne!(FIRST.intern("a"), SECOND.intern("a"));
    }

    #[test]
    fn sub_strings_at_one_address_differ_by_length() {
        let whole: &'static str = "ABCABC";
        let a = Interned(&whole[0..3]);
        let b = Interned(&whole[0..6]);
        assert_ne!(a, b);
        assert_eq!(a, Interned(&whole[0..3]));
    }

    #[test]
    fn hash_agrees_with_eq() {
        static INTERNER: Interner<str> = Interner::new();
        let hasher = std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default();
        let a = INTERNER.intern("label");
        let b = INTERNER.intern(&String::from("label"));
        assert_eq!(hasher.hash_one(a), hasher.hash_one(b));
    }

    #[test]
    fn threads_get_the_same_handle() {
        static INTERNER: Interner<str> = Interner::new();
        let handles: Vec<Interned<str>> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| INTERNER.intern("shared")))
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(handles.windows(2).all(|pair| pair[0] == pair[1]));
    }
}
