//! `#[derive(Resource)]`: the marker impl.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::{DeriveInput, Generics, Path};

use crate::attr::EcsAttr;
use crate::errors::Errors;
use crate::generics::reject_lifetimes;

/// Expands `#[derive(Resource)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(ResourceInput::parse(input)?.generate())
}

/// Everything the generated impl depends on.
struct ResourceInput<'a> {
    ident: &'a Ident,
    generics: &'a Generics,
    krate: Path,
}

impl<'a> ResourceInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        reject_lifetimes(&input.generics, "Resource", &mut errors);
        errors.finish()?;
        Ok(Self {
            ident: &input.ident,
            generics: &input.generics,
            krate,
        })
    }

    fn generate(&self) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
        } = self;
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        quote! {
            #[automatically_derived]
            impl #impl_generics #krate::resource::Resource for #ident #ty_generics #where_clause {}
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn marker_impl_keeps_generics() {
        let input = parse_quote!(
            struct R<T: Send + Sync + 'static>(T);
        );
        let out = derive(&input).unwrap().to_string();
        assert!(
            out.contains(
                "impl < T : Send + Sync + 'static > :: ecs :: resource :: Resource for R < T >"
            ),
            "{out}"
        );
    }

    #[test]
    fn lifetimes_are_rejected() {
        let input = parse_quote!(
            struct R<'a>(&'a str);
        );
        let error = derive(&input).unwrap_err();
        assert_eq!(
            error.to_string(),
            "`Resource` types must be 'static: remove the lifetime parameter `'a`"
        );
    }
}
