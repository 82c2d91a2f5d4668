//! [`UniqueEntityArray`]: an array whose entities are all distinct.

use std::{array, fmt, ops::Deref, slice};

use super::{Entity, EntityEquivalent, UniqueEntityEquivalentSlice, UniqueEntityIter};

/// An array of `N` [`EntityEquivalent`] values that name distinct
/// entities: what [`Query::get_many_unique`](crate::system::Query::get_many_unique)
/// takes, with no aliasing check left to do.
///
/// Safe ways to make one: from `[e]` or `[]`, or with `try_from` from a
/// [`UniqueEntityEquivalentSlice`] or [`UniqueEntityEquivalentVec`](super::UniqueEntityEquivalentVec)
/// of length `N`.
#[repr(transparent)]
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UniqueEntityEquivalentArray<T: EntityEquivalent, const N: usize>([T; N]);

/// An array of `N` distinct [`Entity`]s.
pub type UniqueEntityArray<const N: usize> = UniqueEntityEquivalentArray<Entity, N>;

impl<T: EntityEquivalent, const N: usize> UniqueEntityEquivalentArray<T, N> {
    /// Wraps `array` as a unique array.
    ///
    /// # Safety
    /// No two values of `array` name the same entity.
    #[inline]
    pub const unsafe fn from_array_unchecked(array: [T; N]) -> Self {
        UniqueEntityEquivalentArray(array)
    }

    /// Views `array` as a unique array.
    ///
    /// # Safety
    /// No two values of `array` name the same entity.
    #[inline]
    pub const unsafe fn from_array_ref_unchecked(array: &[T; N]) -> &Self {
        // SAFETY: `Self` is a `repr(transparent)` `[T; N]`; uniqueness is
        // the caller's promise.
        unsafe { &*(array as *const [T; N] as *const Self) }
    }

    /// The plain array.
    #[inline]
    pub fn into_inner(self) -> [T; N] {
        self.0
    }

    /// The plain array, borrowed.
    #[inline]
    pub const fn as_inner(&self) -> &[T; N] {
        &self.0
    }

    /// The values as a unique slice.
    #[inline]
    pub const fn as_slice(&self) -> &UniqueEntityEquivalentSlice<T> {
        // SAFETY: the values of a unique array are distinct.
        unsafe { UniqueEntityEquivalentSlice::from_slice_unchecked(&self.0) }
    }
}

impl<T: EntityEquivalent, const N: usize> Deref for UniqueEntityEquivalentArray<T, N> {
    type Target = UniqueEntityEquivalentSlice<T>;

    #[inline]
    fn deref(&self) -> &Self::Target {
        self.as_slice()
    }
}

impl<T: EntityEquivalent> Default for UniqueEntityEquivalentArray<T, 0> {
    fn default() -> Self {
        UniqueEntityEquivalentArray([])
    }
}

impl<T: EntityEquivalent + fmt::Debug, const N: usize> fmt::Debug
    for UniqueEntityEquivalentArray<T, N>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: EntityEquivalent, const N: usize> IntoIterator for UniqueEntityEquivalentArray<T, N> {
    type Item = T;
    type IntoIter = UniqueEntityIter<array::IntoIter<T, N>>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        // SAFETY: the values of a unique array are distinct.
        unsafe { UniqueEntityIter::from_iterator_unchecked(self.0.into_iter()) }
    }
}

impl<'a, T: EntityEquivalent, const N: usize> IntoIterator
    for &'a UniqueEntityEquivalentArray<T, N>
{
    type Item = &'a T;
    type IntoIter = UniqueEntityIter<slice::Iter<'a, T>>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: EntityEquivalent> From<[T; 0]> for UniqueEntityEquivalentArray<T, 0> {
    fn from(array: [T; 0]) -> Self {
        UniqueEntityEquivalentArray(array)
    }
}

impl<T: EntityEquivalent> From<[T; 1]> for UniqueEntityEquivalentArray<T, 1> {
    fn from(array: [T; 1]) -> Self {
        UniqueEntityEquivalentArray(array)
    }
}

impl<T: EntityEquivalent, const N: usize> From<UniqueEntityEquivalentArray<T, N>> for [T; N] {
    fn from(array: UniqueEntityEquivalentArray<T, N>) -> Self {
        array.0
    }
}

impl<T: EntityEquivalent, U, const N: usize> PartialEq<[U; N]> for UniqueEntityEquivalentArray<T, N>
where
    T: PartialEq<U>,
{
    fn eq(&self, other: &[U; N]) -> bool {
        self.0 == *other
    }
}
