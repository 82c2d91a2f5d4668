//! Collecting every problem in a derive input into one report.

use std::fmt::Display;

use quote::ToTokens;

/// The errors found so far while reading one derive input.
///
/// A derive keeps going after the first problem so that the user sees all
/// of them at once; [`Errors::finish`] turns them into one `syn::Error`
/// (each part keeps its own span).
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
}

impl Errors {
    /// Records `error`.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// Records an error with `message` at `tokens`.
    pub(crate) fn push_spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records the error of `result`, if any, and returns its value.
    pub(crate) fn take<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// `Ok(())` when nothing was recorded, else every recorded error.
    pub(crate) fn finish(self) -> syn::Result<()> {
        match self.combined {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}
