//! Collecting every problem in a derive input into one report.

use std::fmt::Display;

use quote::ToTokens;

/// The errors found so far while reading one derive input.
///
/// A derive keeps going after the first problem so that the user sees all
/// of them at once; [`Errors::check`] turns them into one `syn::Error`
/// (each part keeps its own span).
///
/// Dropping a collector that was never checked panics, so a derive cannot
/// lose the errors it recorded by returning before reporting them.
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
    /// Set by [`Errors::check`]; a drop without it is a bug in the derive.
    checked: bool,
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
    pub(crate) fn check(mut self) -> syn::Result<()> {
        self.checked = true;
        match self.combined.take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        // A panic already unwinding says what went wrong; a second would abort.
        if !self.checked && !std::thread::panicking() {
            panic!("forgot to check for errors");
        }
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::*;

    #[test]
    fn check_reports_every_error_in_order() {
        let mut errors = Errors::default();
        errors.push(syn::Error::new(Span::call_site(), "first"));
        assert_eq!(errors.take(Ok::<_, syn::Error>(1)), Some(1));
        errors.take::<()>(Err(syn::Error::new(Span::call_site(), "second")));
        let messages: Vec<String> = errors
            .check()
            .unwrap_err()
            .into_iter()
            .map(|error| error.to_string())
            .collect();
        assert_eq!(messages, ["first", "second"]);
    }

    #[test]
    fn check_without_errors_is_ok() {
        assert!(Errors::default().check().is_ok());
    }

    #[test]
    #[should_panic = "forgot to check for errors"]
    fn dropping_unchecked_panics() {
        let mut errors = Errors::default();
        errors.push(syn::Error::new(Span::call_site(), "lost"));
    }

    #[test]
    #[should_panic = "forgot to check for errors"]
    fn dropping_unchecked_panics_even_without_errors() {
        drop(Errors::default());
    }
}
