//! The `snapshot` key shared by `#[component(..)]` and `#[resource(..)]`:
//! the type takes part in every world's snapshots.
//!
//! ```text
//! snapshot         ─▶ fn snapshot_behavior() { SnapshotBehavior::cloned::<Self>() }
//! snapshot = hash  ─▶ fn snapshot_behavior() { SnapshotBehavior::hashed::<Self>() }
//!                     (`copied` / `copied_hashed` instead when `Self: Copy`)
//! ```
//!
//! The call is spanned at the key (or at `hash`), so a type that is not
//! `Clone` (or not `Hash`) is the compiler's error at the attribute.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{Expr, Meta, Path};

/// `snapshot` or `snapshot = hash`.
pub(crate) enum SnapshotAttr {
    /// Cloned by snapshots.
    Cloned(Span),
    /// Cloned by snapshots and hashed into the checksum.
    Hashed(Span),
}

impl SnapshotAttr {
    const USAGE: &'static str = "expected `snapshot` or `snapshot = hash`";

    /// Reads the `snapshot` key `meta`.
    pub(crate) fn parse(meta: &Meta) -> syn::Result<Self> {
        match meta {
            Meta::Path(path) => Ok(Self::Cloned(path.span())),
            Meta::NameValue(nv) => match &nv.value {
                Expr::Path(path)
                    if path.qself.is_none()
                        && path.attrs.is_empty()
                        && path.path.is_ident("hash") =>
                {
                    Ok(Self::Hashed(path.span()))
                }
                other => Err(syn::Error::new_spanned(other, Self::USAGE)),
            },
            Meta::List(_) => Err(syn::Error::new_spanned(meta, Self::USAGE)),
        }
    }

    /// `fn snapshot_behavior` for the trait impl. The `Clone` (or `Hash`)
    /// behaviour is always built, so its bound errors stay at the key; the
    /// probe then swaps in the bitwise one when the type is `Copy`.
    pub(crate) fn generate(&self, krate: &Path) -> TokenStream {
        let (span, constructor, pick, via_copy, via_fallback) = match self {
            Self::Cloned(span) => (
                *span,
                quote_spanned!(*span=> cloned),
                quote_spanned!(*span=> snapshot_or),
                quote_spanned!(*span=> ViaCopy),
                quote_spanned!(*span=> ViaFallback),
            ),
            Self::Hashed(span) => (
                *span,
                quote_spanned!(*span=> hashed),
                quote_spanned!(*span=> snapshot_hashed_or),
                quote_spanned!(*span=> ViaCopyHashed),
                quote_spanned!(*span=> ViaFallbackHashed),
            ),
        };
        quote_spanned! {span=>
            fn snapshot_behavior() -> #krate::component::SnapshotBehavior {
                #[allow(unused_imports)]
                use #krate::component::__snapshot_probe::{#via_copy as _, #via_fallback as _};
                let fallback = #krate::component::SnapshotBehavior::#constructor::<Self>();
                (&&#krate::component::__snapshot_probe::Probe::<Self>::new()).#pick(fallback)
            }
        }
    }
}
