//! [`UniqueEntityVec`]: a vector whose entities are all distinct.

use std::{
    collections::BTreeSet,
    fmt,
    ops::{Deref, DerefMut},
    vec,
};

use super::{
    Entity, EntityEquivalent, EntityHashSet, EntitySet, FromEntitySetIterator,
    UniqueEntityEquivalentArray, UniqueEntityEquivalentSlice, UniqueEntityIter,
};

/// A vector of [`EntityEquivalent`] values that name distinct entities.
///
/// Best built with [`EntitySetIterator::collect_set`](super::EntitySetIterator::collect_set)
/// from a set, or `From` a `BTreeSet` or an [`EntityHashSet`];
/// [`Iterator::collect`] works too but checks each new value against all
/// the others (quadratic), dropping repeats.
///
/// ```
/// use ecs::entity::{Entity, UniqueEntityVec};
///
/// let (a, b) = (Entity::from_raw(1), Entity::from_raw(2));
/// let unique: UniqueEntityVec = [a, b, a].into_iter().collect();
/// assert_eq!(unique.as_inner(), &[a, b]);
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UniqueEntityEquivalentVec<T: EntityEquivalent>(Vec<T>);

/// A vector of distinct [`Entity`]s.
pub type UniqueEntityVec = UniqueEntityEquivalentVec<Entity>;

/// The owning iterator of a [`UniqueEntityEquivalentVec`].
pub type IntoIter<T = Entity> = UniqueEntityIter<vec::IntoIter<T>>;

impl<T: EntityEquivalent> UniqueEntityEquivalentVec<T> {
    /// An empty vector.
    #[inline]
    pub const fn new() -> Self {
        UniqueEntityEquivalentVec(Vec::new())
    }

    /// An empty vector with room for `capacity` values.
    #[inline]
    pub fn with_capacity(capacity: usize) -> Self {
        UniqueEntityEquivalentVec(Vec::with_capacity(capacity))
    }

    /// Wraps `vec` as a unique vector.
    ///
    /// # Safety
    /// No two values of `vec` name the same entity.
    #[inline]
    pub const unsafe fn from_vec_unchecked(vec: Vec<T>) -> Self {
        UniqueEntityEquivalentVec(vec)
    }

    /// The plain vector.
    #[inline]
    pub fn into_inner(self) -> Vec<T> {
        self.0
    }

    /// The plain vector, borrowed.
    #[inline]
    pub const fn as_vec(&self) -> &Vec<T> {
        &self.0
    }

    /// The values as a unique slice.
    #[inline]
    pub fn as_slice(&self) -> &UniqueEntityEquivalentSlice<T> {
        // SAFETY: the values of a unique vector are distinct.
        unsafe { UniqueEntityEquivalentSlice::from_slice_unchecked(&self.0) }
    }

    /// The values as a unique slice, mutably.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut UniqueEntityEquivalentSlice<T> {
        // SAFETY: as in `as_slice`; the slice keeps the set of values.
        unsafe { UniqueEntityEquivalentSlice::from_slice_unchecked_mut(&mut self.0) }
    }

    /// How many values fit before the vector reallocates.
    #[inline]
    pub fn capacity(&self) -> usize {
        self.0.capacity()
    }

    /// Appends `value`.
    ///
    /// # Safety
    /// No value of the vector names `value`'s entity.
    #[inline]
    pub unsafe fn push(&mut self, value: T) {
        self.0.push(value);
    }

    /// Removes and returns the last value.
    #[inline]
    pub fn pop(&mut self) -> Option<T> {
        self.0.pop()
    }

    /// Removes and returns the value at `index`, shifting the rest down.
    ///
    /// # Panics
    /// If `index` is out of bounds.
    #[inline]
    #[track_caller]
    pub fn remove(&mut self, index: usize) -> T {
        self.0.remove(index)
    }

    /// Removes and returns the value at `index`, moving the last one in.
    ///
    /// # Panics
    /// If `index` is out of bounds.
    #[inline]
    #[track_caller]
    pub fn swap_remove(&mut self, index: usize) -> T {
        self.0.swap_remove(index)
    }

    /// Keeps the values `keep` returns `true` for.
    #[inline]
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.0.retain(keep);
    }

    /// Keeps the first `len` values.
    #[inline]
    pub fn truncate(&mut self, len: usize) {
        self.0.truncate(len);
    }

    /// Removes every value.
    #[inline]
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl<T: EntityEquivalent> Default for UniqueEntityEquivalentVec<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: EntityEquivalent> Deref for UniqueEntityEquivalentVec<T> {
    type Target = UniqueEntityEquivalentSlice<T>;

    #[inline]
    fn deref(&self) -> &Self::Target {
        self.as_slice()
    }
}

impl<T: EntityEquivalent> DerefMut for UniqueEntityEquivalentVec<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.as_mut_slice()
    }
}

impl<T: EntityEquivalent + fmt::Debug> fmt::Debug for UniqueEntityEquivalentVec<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<T: EntityEquivalent> IntoIterator for UniqueEntityEquivalentVec<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        // SAFETY: the values of a unique vector are distinct.
        unsafe { UniqueEntityIter::from_iterator_unchecked(self.0.into_iter()) }
    }
}

impl<'a, T: EntityEquivalent> IntoIterator for &'a UniqueEntityEquivalentVec<T> {
    type Item = &'a T;
    type IntoIter = super::unique_slice::Iter<'a, T>;

    #[inline]
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: EntityEquivalent> FromIterator<T> for UniqueEntityEquivalentVec<T> {
    /// Drops each value whose entity is already in the vector; checks by
    /// `Eq` alone, so it is quadratic (prefer a set and `collect_set`).
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut values = Vec::with_capacity(iter.size_hint().0);
        for value in iter {
            if !values.contains(&value) {
                values.push(value);
            }
        }
        UniqueEntityEquivalentVec(values)
    }
}

impl<T: EntityEquivalent> FromEntitySetIterator<T> for UniqueEntityEquivalentVec<T> {
    fn from_entity_set_iter<I: EntitySet<Item = T>>(set_iter: I) -> Self {
        // SAFETY: the items of an `EntitySet` are distinct.
        unsafe { Self::from_vec_unchecked(set_iter.into_iter().collect()) }
    }
}

impl<T: EntityEquivalent> From<BTreeSet<T>> for UniqueEntityEquivalentVec<T> {
    fn from(set: BTreeSet<T>) -> Self {
        // SAFETY: a set's values are distinct, and so are their entities.
        unsafe { Self::from_vec_unchecked(set.into_iter().collect()) }
    }
}

/// In the set's iteration order.
impl From<EntityHashSet> for UniqueEntityVec {
    fn from(set: EntityHashSet) -> Self {
        // SAFETY: a set's entities are distinct.
        unsafe { Self::from_vec_unchecked(set.into_iter().collect()) }
    }
}

impl<T: EntityEquivalent> From<[T; 0]> for UniqueEntityEquivalentVec<T> {
    fn from(array: [T; 0]) -> Self {
        UniqueEntityEquivalentVec(Vec::from(array))
    }
}

impl<T: EntityEquivalent> From<[T; 1]> for UniqueEntityEquivalentVec<T> {
    fn from(array: [T; 1]) -> Self {
        UniqueEntityEquivalentVec(Vec::from(array))
    }
}

impl<T: EntityEquivalent, const N: usize> From<UniqueEntityEquivalentArray<T, N>>
    for UniqueEntityEquivalentVec<T>
{
    fn from(array: UniqueEntityEquivalentArray<T, N>) -> Self {
        UniqueEntityEquivalentVec(Vec::from(array.into_inner()))
    }
}

impl<T: EntityEquivalent> From<UniqueEntityEquivalentVec<T>> for Vec<T> {
    fn from(vec: UniqueEntityEquivalentVec<T>) -> Self {
        vec.0
    }
}

impl<T: EntityEquivalent, const N: usize> TryFrom<UniqueEntityEquivalentVec<T>>
    for UniqueEntityEquivalentArray<T, N>
{
    type Error = UniqueEntityEquivalentVec<T>;

    /// The vector back if its length is not `N`.
    fn try_from(vec: UniqueEntityEquivalentVec<T>) -> Result<Self, Self::Error> {
        match <[T; N]>::try_from(vec.0) {
            // SAFETY: the values of a unique vector are distinct.
            Ok(array) => Ok(unsafe { UniqueEntityEquivalentArray::from_array_unchecked(array) }),
            Err(vec) => Err(UniqueEntityEquivalentVec(vec)),
        }
    }
}

impl<T: EntityEquivalent, U> PartialEq<[U]> for UniqueEntityEquivalentVec<T>
where
    T: PartialEq<U>,
{
    fn eq(&self, other: &[U]) -> bool {
        self.0[..] == *other
    }
}

impl<T: EntityEquivalent, U, const N: usize> PartialEq<[U; N]> for UniqueEntityEquivalentVec<T>
where
    T: PartialEq<U>,
{
    fn eq(&self, other: &[U; N]) -> bool {
        self.0[..] == other[..]
    }
}

impl<T: EntityEquivalent> std::borrow::Borrow<UniqueEntityEquivalentSlice<T>>
    for UniqueEntityEquivalentVec<T>
{
    fn borrow(&self) -> &UniqueEntityEquivalentSlice<T> {
        self.as_slice()
    }
}
