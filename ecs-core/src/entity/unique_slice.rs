//! [`UniqueEntitySlice`]: a slice whose entities are all distinct.

use std::{array::TryFromSliceError, fmt, ops::Deref, slice};

use super::{
    Entity, EntityEquivalent, UniqueEntityEquivalentArray, UniqueEntityEquivalentVec,
    UniqueEntityIter,
};

/// A slice of [`EntityEquivalent`] values that name distinct entities.
///
/// It derefs to `[T]` for reading; the methods that write through it keep
/// the values (sorting, reversing, swapping), so the set stays unique.
#[repr(transparent)]
#[derive(PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UniqueEntityEquivalentSlice<T: EntityEquivalent>([T]);

/// A slice of distinct [`Entity`]s.
pub type UniqueEntitySlice = UniqueEntityEquivalentSlice<Entity>;

/// The iterator of a [`UniqueEntityEquivalentSlice`].
pub type Iter<'a, T = Entity> = UniqueEntityIter<slice::Iter<'a, T>>;

impl<T: EntityEquivalent> UniqueEntityEquivalentSlice<T> {
    /// Views `slice` as a unique slice.
    ///
    /// # Safety
    /// No two values of `slice` name the same entity.
    #[inline]
    pub const unsafe fn from_slice_unchecked(slice: &[T]) -> &Self {
        // SAFETY: `Self` is a `repr(transparent)` `[T]`; uniqueness is the
        // caller's promise.
        unsafe { &*(slice as *const [T] as *const Self) }
    }

    /// Views `slice` as a unique slice, mutably.
    ///
    /// # Safety
    /// No two values of `slice` name the same entity.
    #[inline]
    pub const unsafe fn from_slice_unchecked_mut(slice: &mut [T]) -> &mut Self {
        // SAFETY: as in `from_slice_unchecked`.
        unsafe { &mut *(slice as *mut [T] as *mut Self) }
    }

    /// The values as a plain slice.
    #[inline]
    pub const fn as_inner(&self) -> &[T] {
        &self.0
    }

    /// The values, front to back, as an [`EntitySetIterator`](super::EntitySetIterator).
    #[inline]
    pub fn iter(&self) -> Iter<'_, T> {
        // SAFETY: the values of a unique slice are distinct.
        unsafe { UniqueEntityIter::from_iterator_unchecked(self.0.iter()) }
    }

    /// The values from `range`, still unique; `None` if `range` is out
    /// of bounds.
    #[inline]
    pub fn get_range(&self, range: impl slice::SliceIndex<[T], Output = [T]>) -> Option<&Self> {
        self.0.get(range).map(|s| {
            // SAFETY: a sub-slice of a unique slice is unique.
            unsafe { Self::from_slice_unchecked(s) }
        })
    }

    /// Splits at `mid` into two unique slices.
    ///
    /// # Panics
    /// If `mid > len`.
    #[inline]
    #[track_caller]
    pub fn split_at(&self, mid: usize) -> (&Self, &Self) {
        let (left, right) = self.0.split_at(mid);
        // SAFETY: both halves of a unique slice are unique.
        unsafe {
            (
                Self::from_slice_unchecked(left),
                Self::from_slice_unchecked(right),
            )
        }
    }

    /// Sorts the values (stable).
    #[inline]
    pub fn sort(&mut self)
    where
        T: Ord,
    {
        self.0.sort();
    }

    /// Sorts the values (unstable).
    #[inline]
    pub fn sort_unstable(&mut self)
    where
        T: Ord,
    {
        self.0.sort_unstable();
    }

    /// Sorts the values with `compare` (stable).
    #[inline]
    pub fn sort_by(&mut self, compare: impl FnMut(&T, &T) -> std::cmp::Ordering) {
        self.0.sort_by(compare);
    }

    /// Sorts the values by `key` (stable).
    #[inline]
    pub fn sort_by_key<K: Ord>(&mut self, key: impl FnMut(&T) -> K) {
        self.0.sort_by_key(key);
    }

    /// Reverses the order of the values.
    #[inline]
    pub fn reverse(&mut self) {
        self.0.reverse();
    }

    /// Swaps the values at `a` and `b`.
    ///
    /// # Panics
    /// If `a` or `b` is out of bounds.
    #[inline]
    #[track_caller]
    pub fn swap(&mut self, a: usize, b: usize) {
        self.0.swap(a, b);
    }

    /// A [`UniqueEntityEquivalentVec`] of clones of the values.
    #[inline]
    pub fn to_vec(&self) -> UniqueEntityEquivalentVec<T>
    where
        T: Clone,
    {
        // SAFETY: clones of distinct values are distinct (`EntityEquivalent`).
        unsafe { UniqueEntityEquivalentVec::from_vec_unchecked(self.0.to_vec()) }
    }
}

impl<T: EntityEquivalent> Deref for UniqueEntityEquivalentSlice<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T: EntityEquivalent + fmt::Debug> fmt::Debug for UniqueEntityEquivalentSlice<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<'a, T: EntityEquivalent> IntoIterator for &'a UniqueEntityEquivalentSlice<T> {
    type Item = &'a T;
    type IntoIter = Iter<'a, T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: EntityEquivalent + Clone> ToOwned for UniqueEntityEquivalentSlice<T> {
    type Owned = UniqueEntityEquivalentVec<T>;

    fn to_owned(&self) -> Self::Owned {
        self.to_vec()
    }
}

impl<T: EntityEquivalent, U, const N: usize> PartialEq<[U; N]> for UniqueEntityEquivalentSlice<T>
where
    T: PartialEq<U>,
{
    fn eq(&self, other: &[U; N]) -> bool {
        self.0 == *other
    }
}

impl<'a, T: EntityEquivalent + Copy, const N: usize> TryFrom<&'a UniqueEntityEquivalentSlice<T>>
    for &'a UniqueEntityEquivalentArray<T, N>
{
    type Error = TryFromSliceError;

    fn try_from(value: &'a UniqueEntityEquivalentSlice<T>) -> Result<Self, Self::Error> {
        let array = <&[T; N]>::try_from(&value.0)?;
        // SAFETY: the values of a unique slice are distinct.
        Ok(unsafe { UniqueEntityEquivalentArray::from_array_ref_unchecked(array) })
    }
}

impl<T: EntityEquivalent + Copy, const N: usize> TryFrom<&UniqueEntityEquivalentSlice<T>>
    for UniqueEntityEquivalentArray<T, N>
{
    type Error = TryFromSliceError;

    fn try_from(value: &UniqueEntityEquivalentSlice<T>) -> Result<Self, Self::Error> {
        <&Self>::try_from(value).copied()
    }
}
