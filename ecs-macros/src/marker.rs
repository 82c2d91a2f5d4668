//! Derives whose whole output is a marker-trait impl (`Resource`,
//! `Event`): the type, its generics kept as written, and the crate path.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::{DeriveInput, Generics, Path};

use crate::attr::EcsAttr;
use crate::errors::Errors;
use crate::generics::reject_lifetimes;

/// Everything a marker impl depends on.
pub(crate) struct MarkerInput<'a> {
    ident: &'a Ident,
    generics: &'a Generics,
    krate: Path,
}

impl<'a> MarkerInput<'a> {
    /// Reads and validates `input` for the derive of `trait_name`,
    /// reporting every problem at once. Structs, enums and unions all
    /// derive; lifetime parameters are rejected (the traits need
    /// `'static`).
    pub(crate) fn parse(input: &'a DeriveInput, trait_name: &str) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        reject_lifetimes(&input.generics, trait_name, &mut errors);
        errors.check()?;
        Ok(Self {
            ident: &input.ident,
            generics: &input.generics,
            krate,
        })
    }

    /// `impl .. #krate::#trait_path for #ident ..` with the user's
    /// generics, and `Self: Send + Sync + 'static` added to the where
    /// clause: a generic type needs no bounds of its own, and the impl
    /// applies where its parameters meet the trait's supertraits.
    pub(crate) fn generate_bounded(&self, trait_path: TokenStream) -> TokenStream {
        self.generate_with(trait_path, |_| TokenStream::new())
    }

    /// [`generate_bounded`](Self::generate_bounded), with the impl's items
    /// built from the crate path.
    pub(crate) fn generate_with(
        &self,
        trait_path: TokenStream,
        items: impl FnOnce(&Path) -> TokenStream,
    ) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
        } = self;
        let items = items(krate);
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let where_clause = crate::bounds::where_self_is_send_sync_static(generics);
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::#trait_path for #ident #ty_generics #where_clause { #items }
        }
    }
}
