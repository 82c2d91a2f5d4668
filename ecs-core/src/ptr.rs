//! Type-erased pointers to component and resource values, for code that
//! works with component ids rather than Rust types (scripting, modding,
//! serialization).
//!
//! Each pointer carries a lifetime and what it may do:
//!
//! | pointer | like | may |
//! |---|---|---|
//! | [`Ptr<'a>`] | `&'a T` | read |
//! | [`PtrMut<'a>`] | `&'a mut T` | read and write |
//! | [`OwningPtr<'a>`] | a `T` moved out, in borrowed memory | read it out once, or drop it in place |
//!
//! None of them knows its type: turning one into a `&T` is `unsafe`, and
//! the caller vouches that `T` is the component's type. The marker `A`
//! ([`Aligned`] by default, or [`Unaligned`]) says whether the address is
//! aligned for that type.
//!
//! ```
//! use ecs::ptr::{Ptr, PtrMut};
//!
//! struct Health(u32);
//!
//! let mut health = Health(7);
//! let mut ptr = PtrMut::from(&mut health);
//! // SAFETY: the pointee is a `Health`.
//! unsafe { ptr.reborrow().deref_mut::<Health>() }.0 -= 2;
//! let shared: Ptr<'_> = ptr.as_ref();
//! // SAFETY: as above.
//! assert_eq!(unsafe { shared.deref::<Health>() }.0, 5);
//! ```

use std::{fmt, marker::PhantomData, mem::ManuallyDrop, ptr::NonNull};

/// The address is aligned for the pointee's type.
#[derive(Debug, Clone, Copy)]
pub struct Aligned;

/// The address may not be aligned for the pointee's type: reads go through
/// `read_unaligned`.
#[derive(Debug, Clone, Copy)]
pub struct Unaligned;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Aligned {}
    impl Sealed for super::Unaligned {}
}

/// [`Aligned`] or [`Unaligned`]: whether a pointer's address is aligned
/// for its pointee. Sealed.
pub trait IsAligned: sealed::Sealed + 'static {
    /// Reads a `T` at `ptr`.
    ///
    /// # Safety
    /// `ptr` points to a valid `T`, aligned if `Self` is [`Aligned`].
    #[doc(hidden)]
    unsafe fn read_ptr<T>(ptr: *const T) -> T;

    /// Drops the `T` at `ptr` in place.
    ///
    /// # Safety
    /// `ptr` points to a valid `T` nobody uses again, aligned if `Self`
    /// is [`Aligned`].
    #[doc(hidden)]
    unsafe fn drop_in_place<T>(ptr: *mut T);
}

impl IsAligned for Aligned {
    #[inline]
    unsafe fn read_ptr<T>(ptr: *const T) -> T {
        debug_assert!(ptr.is_aligned(), "an Aligned pointer is not aligned");
        // SAFETY: the caller guarantees a valid, aligned `T`.
        unsafe { ptr.read() }
    }

    #[inline]
    unsafe fn drop_in_place<T>(ptr: *mut T) {
        debug_assert!(ptr.is_aligned(), "an Aligned pointer is not aligned");
        // SAFETY: the caller guarantees a valid, aligned `T` used by nobody after.
        unsafe { ptr.drop_in_place() }
    }
}

impl IsAligned for Unaligned {
    #[inline]
    unsafe fn read_ptr<T>(ptr: *const T) -> T {
        // SAFETY: the caller guarantees a valid `T`; no alignment needed.
        unsafe { ptr.read_unaligned() }
    }

    #[inline]
    unsafe fn drop_in_place<T>(ptr: *mut T) {
        // SAFETY: the caller guarantees a valid `T` used by nobody after;
        // it is moved to an aligned local first, then dropped there.
        drop(unsafe { ptr.read_unaligned() });
    }
}

/// A type-erased shared reference: `&'a T` for a `T` known only to the
/// caller.
#[repr(transparent)]
pub struct Ptr<'a, A: IsAligned = Aligned>(NonNull<u8>, PhantomData<(&'a u8, A)>);

/// A type-erased exclusive reference: `&'a mut T` for a `T` known only to
/// the caller.
#[repr(transparent)]
pub struct PtrMut<'a, A: IsAligned = Aligned>(NonNull<u8>, PhantomData<(&'a mut u8, A)>);

/// A type-erased owned value in memory it does not own: whoever holds it
/// reads the value out or drops it in place, once; letting it go does
/// neither (the value is then forgotten).
#[repr(transparent)]
pub struct OwningPtr<'a, A: IsAligned = Aligned>(NonNull<u8>, PhantomData<(&'a mut u8, A)>);

macro_rules! common_impls {
    ($ptr:ident) => {
        impl<'a> $ptr<'a, Aligned> {
            /// The same pointer, with no claim of alignment.
            #[inline]
            pub fn to_unaligned(self) -> $ptr<'a, Unaligned> {
                $ptr(self.0, PhantomData)
            }
        }

        impl<A: IsAligned> $ptr<'_, A> {
            /// The address `count` bytes away.
            ///
            /// # Safety
            /// The new address is in the same allocation, and points to a
            /// value of the type the caller will use it as, aligned if `A`
            /// is [`Aligned`], valid for the pointer's lifetime and use.
            #[inline]
            pub unsafe fn byte_offset(self, count: isize) -> Self {
                // SAFETY: in the same allocation (caller), so non-null.
                Self(unsafe { self.0.offset(count) }, PhantomData)
            }

            /// The address `count` bytes further.
            ///
            /// # Safety
            /// As [`byte_offset`](Self::byte_offset).
            #[inline]
            pub unsafe fn byte_add(self, count: usize) -> Self {
                // SAFETY: in the same allocation (caller), so non-null.
                Self(unsafe { self.0.add(count) }, PhantomData)
            }
        }

        impl<A: IsAligned> From<$ptr<'_, A>> for NonNull<u8> {
            #[inline]
            fn from(ptr: $ptr<'_, A>) -> NonNull<u8> {
                ptr.0
            }
        }

        impl<A: IsAligned> fmt::Pointer for $ptr<'_, A> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Pointer::fmt(&self.0, f)
            }
        }

        impl<A: IsAligned> fmt::Debug for $ptr<'_, A> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "{}<{}>({:p})",
                    stringify!($ptr),
                    std::any::type_name::<A>().rsplit("::").next().unwrap_or(""),
                    self.0
                )
            }
        }
    };
}

common_impls!(Ptr);
common_impls!(PtrMut);
common_impls!(OwningPtr);

impl<A: IsAligned> Clone for Ptr<'_, A> {
    #[inline]
    fn clone(&self) -> Self {
        *self
    }
}

impl<A: IsAligned> Copy for Ptr<'_, A> {}

impl<'a, A: IsAligned> Ptr<'a, A> {
    /// A pointer to a value borrowed for `'a`.
    ///
    /// # Safety
    /// `inner` points to a value that stays valid and unmutated for `'a`,
    /// aligned for its type if `A` is [`Aligned`].
    #[inline]
    pub unsafe fn new(inner: NonNull<u8>) -> Self {
        Self(inner, PhantomData)
    }

    /// An exclusive pointer to the same value.
    ///
    /// # Safety
    /// Nothing else reads or writes the value for `'a`: this was the only
    /// pointer to it.
    #[inline]
    pub unsafe fn assert_unique(self) -> PtrMut<'a, A> {
        PtrMut(self.0, PhantomData)
    }

    /// The value as a `&T`.
    ///
    /// # Safety
    /// The value is a `T`, and `A` is [`Aligned`] or the address happens
    /// to be aligned for `T`.
    #[inline]
    pub unsafe fn deref<T>(self) -> &'a T {
        let ptr = self.0.as_ptr().cast::<T>();
        debug_assert!(ptr.is_aligned(), "Ptr::deref of a misaligned address");
        // SAFETY: a valid `T` for `'a`, aligned (caller).
        unsafe { &*ptr }
    }

    /// The raw address.
    #[inline]
    pub fn as_ptr(self) -> *const u8 {
        self.0.as_ptr()
    }
}

impl<'a, T: ?Sized> From<&'a T> for Ptr<'a> {
    #[inline]
    fn from(value: &'a T) -> Self {
        Ptr(NonNull::from(value).cast(), PhantomData)
    }
}

impl<'a, A: IsAligned> PtrMut<'a, A> {
    /// A pointer to a value borrowed exclusively for `'a`.
    ///
    /// # Safety
    /// `inner` points to a value that stays valid for `'a` and that
    /// nothing else reads or writes meanwhile, aligned for its type if `A`
    /// is [`Aligned`].
    #[inline]
    pub unsafe fn new(inner: NonNull<u8>) -> Self {
        Self(inner, PhantomData)
    }

    /// An owning pointer to the same value: whoever holds it reads it out
    /// or drops it.
    ///
    /// # Safety
    /// After the owning pointer is used, the memory holds no value: the
    /// caller treats it as uninitialised (does not drop or read it).
    #[inline]
    pub unsafe fn promote(self) -> OwningPtr<'a, A> {
        OwningPtr(self.0, PhantomData)
    }

    /// The value as a `&mut T`.
    ///
    /// # Safety
    /// The value is a `T`, and `A` is [`Aligned`] or the address happens
    /// to be aligned for `T`.
    #[inline]
    pub unsafe fn deref_mut<T>(self) -> &'a mut T {
        let ptr = self.0.as_ptr().cast::<T>();
        debug_assert!(
            ptr.is_aligned(),
            "PtrMut::deref_mut of a misaligned address"
        );
        // SAFETY: a valid, exclusively borrowed `T` for `'a`, aligned (caller).
        unsafe { &mut *ptr }
    }

    /// The raw address.
    #[inline]
    pub fn as_ptr(&self) -> *mut u8 {
        self.0.as_ptr()
    }

    /// A shorter exclusive borrow of the same value.
    #[inline]
    pub fn reborrow(&mut self) -> PtrMut<'_, A> {
        PtrMut(self.0, PhantomData)
    }

    /// A shared borrow of the same value.
    #[inline]
    pub fn as_ref(&self) -> Ptr<'_, A> {
        Ptr(self.0, PhantomData)
    }
}

impl<'a, T: ?Sized> From<&'a mut T> for PtrMut<'a> {
    #[inline]
    fn from(value: &'a mut T) -> Self {
        PtrMut(NonNull::from(value).cast(), PhantomData)
    }
}

impl OwningPtr<'_> {
    /// Moves `value` onto the stack and calls `f` with an owning pointer
    /// to it; `f` reads it out or drops it. If `f` does neither, the value
    /// is forgotten (never dropped twice).
    ///
    /// ```
    /// use ecs::ptr::OwningPtr;
    ///
    /// let len = OwningPtr::make(String::from("four"), |ptr| {
    ///     // SAFETY: `make` was given a `String`.
    ///     unsafe { ptr.read::<String>() }.len()
    /// });
    /// assert_eq!(len, 4);
    /// ```
    #[inline]
    pub fn make<T, F: FnOnce(OwningPtr<'_>) -> R, R>(value: T, f: F) -> R {
        let mut slot = ManuallyDrop::new(value);
        // SAFETY: `slot` is a valid, aligned `T` on this frame, borrowed
        // exclusively by the closure; `ManuallyDrop` leaves dropping it to
        // whoever holds the pointer.
        f(unsafe { OwningPtr::new(NonNull::from(&mut *slot).cast()) })
    }
}

impl<'a, A: IsAligned> OwningPtr<'a, A> {
    /// An owning pointer to the value at `inner`.
    ///
    /// # Safety
    /// `inner` points to a valid value that nothing else reads, writes or
    /// drops for `'a`, aligned for its type if `A` is [`Aligned`]; the
    /// holder of this pointer owns it.
    #[inline]
    pub unsafe fn new(inner: NonNull<u8>) -> Self {
        Self(inner, PhantomData)
    }

    /// Moves the value out as a `T`.
    ///
    /// # Safety
    /// The value is a `T`.
    #[inline]
    pub unsafe fn read<T>(self) -> T {
        // SAFETY: an owned, valid `T` (caller), aligned as `A` says.
        unsafe { A::read_ptr(self.0.as_ptr().cast::<T>()) }
    }

    /// Drops the value in place as a `T`.
    ///
    /// # Safety
    /// The value is a `T`.
    #[inline]
    pub unsafe fn drop_as<T>(self) {
        // SAFETY: an owned, valid `T` (caller) that nobody uses after this.
        unsafe { A::drop_in_place(self.0.as_ptr().cast::<T>()) }
    }

    /// The raw address.
    #[inline]
    pub fn as_ptr(&self) -> *mut u8 {
        self.0.as_ptr()
    }

    /// A shared borrow of the value.
    #[inline]
    pub fn as_ref(&self) -> Ptr<'_, A> {
        Ptr(self.0, PhantomData)
    }

    /// An exclusive borrow of the value.
    #[inline]
    pub fn as_mut(&mut self) -> PtrMut<'_, A> {
        PtrMut(self.0, PhantomData)
    }
}

impl<'a> OwningPtr<'a, Unaligned> {
    /// Moves the value out as a `T`, whatever the address's alignment.
    ///
    /// # Safety
    /// The value is a `T`.
    #[inline]
    pub unsafe fn read_unaligned<T>(self) -> T {
        // SAFETY: an owned, valid `T` (caller); no alignment needed.
        unsafe { self.0.as_ptr().cast::<T>().read_unaligned() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// Counts its drops in a borrowed cell, so a forgotten one leaks
    /// nothing.
    struct Counted<'a>(&'a Cell<u32>);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.set(self.0.get() + 1);
        }
    }

    #[test]
    fn make_and_read_moves_once() {
        let drops = Cell::new(0);
        let value = OwningPtr::make(Counted(&drops), |ptr| {
            // SAFETY: a `Counted` was given.
            unsafe { ptr.read::<Counted>() }
        });
        assert_eq!(drops.get(), 0);
        drop(value);
        assert_eq!(drops.get(), 1);
    }

    #[test]
    fn make_and_drop_as_drops_once() {
        let drops = Cell::new(0);
        // SAFETY: a `Counted` was given.
        OwningPtr::make(Counted(&drops), |ptr| unsafe { ptr.drop_as::<Counted>() });
        assert_eq!(drops.get(), 1);
        // Neither read nor dropped: forgotten.
        OwningPtr::make(Counted(&drops), |_| ());
        assert_eq!(drops.get(), 1);
    }

    #[test]
    fn shared_and_exclusive_views() {
        let mut x = 41u64;
        let mut ptr = PtrMut::from(&mut x);
        // SAFETY: the pointee is the `u64` `x`.
        unsafe { *ptr.reborrow().deref_mut::<u64>() += 1 };
        // SAFETY: as above.
        assert_eq!(unsafe { *ptr.as_ref().deref::<u64>() }, 42);
        let shared = Ptr::from(&x);
        assert!(shared.as_ptr().cast::<u64>().is_aligned());
        // SAFETY: as above.
        assert_eq!(unsafe { *shared.deref::<u64>() }, 42);
    }

    #[test]
    fn unaligned_reads_and_drops() {
        let drops = Cell::new(0);
        let mut bytes = [0u8; 1 + std::mem::size_of::<Counted>()];
        let base = bytes.as_mut_ptr();
        // SAFETY: in bounds; written unaligned and read back unaligned.
        unsafe {
            let at = base.add(1);
            at.cast::<Counted>().write_unaligned(Counted(&drops));
            let owned = OwningPtr::<Unaligned>::new(NonNull::new(at).unwrap());
            owned.drop_as::<Counted>();
        }
        assert_eq!(drops.get(), 1);
        // SAFETY: as above.
        let value = unsafe {
            let at = base.add(1);
            at.cast::<u32>().write_unaligned(0xdead_beef);
            OwningPtr::<Unaligned>::new(NonNull::new(at).unwrap()).read_unaligned::<u32>()
        };
        assert_eq!(value, 0xdead_beef);
    }
}
