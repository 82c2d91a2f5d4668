//! `#[derive(Bundle)]`: read the struct and its fields into a
//! [`BundleInput`], then generate `Bundle`, `DynamicBundle` and (unless
//! `#[bundle(ignore_from_components)]`) `BundleFromComponents` impls that
//! delegate to each field's own impl, in declaration order.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, DeriveInput, Field, Generics, Member, Path, Type};

use crate::attr::{self, EcsAttr, SetOnce};
use crate::bounds::where_clause_with_bounds;
use crate::errors::Errors;
use crate::fields::{self, Shape};
use crate::generics::reject_lifetimes;

/// Expands `#[derive(Bundle)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(BundleInput::parse(input)?.generate())
}

/// Everything the generated impls depend on.
struct BundleInput<'a> {
    ident: &'a Ident,
    generics: &'a Generics,
    krate: Path,
    /// How the struct is built and taken apart.
    shape: Shape,
    fields: Vec<BundleField<'a>>,
    /// No `#[bundle(ignore_from_components)]`: generate
    /// `BundleFromComponents`, so the struct can be taken out of an entity.
    from_components: bool,
}

/// One field of the struct.
struct BundleField<'a> {
    member: Member,
    ty: &'a Type,
    /// `#[bundle(ignore)]`: not part of the bundle, rebuilt by `Default`.
    ignored: bool,
}

impl<'a> BundleInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        reject_lifetimes(&input.generics, "Bundle", &mut errors);
        let from_components = Self::parse_container_attr(&input.attrs, &mut errors);
        let data = fields::struct_data(
            input,
            "Bundle",
            "an enum has no fixed set of components",
            &mut errors,
        );
        let (shape, fields) = match data {
            Some(data) => {
                let fields = fields::with_members(&data.fields)
                    .map(|(field, member)| BundleField::parse(field, member, &mut errors))
                    .collect();
                (Shape::of(&data.fields), fields)
            }
            None => (Shape::Unit, Vec::new()),
        };
        errors.check()?;
        Ok(Self {
            ident: &input.ident,
            generics: &input.generics,
            krate,
            shape,
            fields,
            from_components,
        })
    }

    /// The keys `#[bundle(..)]` knows on the struct.
    const KEYS: &'static [&'static str] = &["ignore_from_components"];

    /// Reads `#[bundle(..)]` on the struct: whether to generate
    /// `BundleFromComponents` (no `ignore_from_components`).
    fn parse_container_attr(attrs: &[Attribute], errors: &mut Errors) -> bool {
        let mut ignore_from_components = SetOnce::default();
        for meta in attr::args_of(attrs, "bundle", errors) {
            let key = meta.path();
            if key.is_ident("ignore_from_components") {
                if errors
                    .take(attr::flag(&meta, "#[bundle(ignore_from_components)]"))
                    .is_some()
                {
                    ignore_from_components.set(key, (), errors);
                }
            } else if key.is_ident("ignore") {
                errors.push_spanned(
                    key,
                    "`#[bundle(ignore)]` is not allowed on the struct: it leaves a field out of \
                     the bundle, so put it on a field",
                );
            } else {
                errors.push(attr::unknown_key("bundle", key, Self::KEYS));
            }
        }
        ignore_from_components.get().is_none()
    }

    fn generate(&self) -> TokenStream {
        let bundle = self.bundle();
        let included = self.bindings(false, "__ecs_field");
        let ignored = self.bindings(true, "__ecs_ignored");
        // `FieldType: Bundle` for each included field, so that a field which
        // is not a bundle is one error at its type (see `crate::bounds`).
        let where_clause = where_clause_with_bounds(
            self.generics,
            included.iter().map(|(_, field)| field.ty),
            &bundle,
        );
        // An empty bundle never touches its arguments.
        let allow_unused = included
            .is_empty()
            .then(|| quote!(#[allow(unused_variables)]));
        let bundle_impl = self.bundle_impl(&included, &where_clause, &allow_unused);
        let dynamic_bundle_impl =
            self.dynamic_bundle_impl(&included, &ignored, &where_clause, &allow_unused);
        let from_components_impl = self
            .from_components
            .then(|| self.bundle_from_components_impl(&included, &allow_unused));
        quote! {
            #bundle_impl
            #dynamic_bundle_impl
            #from_components_impl
        }
    }

    /// `#krate::bundle::Bundle`.
    fn bundle(&self) -> TokenStream {
        let krate = &self.krate;
        quote!(#krate::bundle::Bundle)
    }

    /// The fields that are (`ignored == false`) or are not part of the
    /// bundle, each with a local named `{prefix}_{i}`, numbered among them.
    fn bindings(&self, ignored: bool, prefix: &str) -> Vec<(Ident, &BundleField<'a>)> {
        self.fields
            .iter()
            .filter(|field| field.ignored == ignored)
            .enumerate()
            .map(|(i, field)| (format_ident!("{}_{}", prefix, i), field))
            .collect()
    }

    /// The `Bundle` impl: ids and values of the included fields' components.
    fn bundle_impl(
        &self,
        included: &[(Ident, &BundleField)],
        where_clause: &TokenStream,
        allow_unused: &Option<TokenStream>,
    ) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
            ..
        } = self;
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let bundle = self.bundle();
        let component = quote!(#krate::component);
        let component_ids = included.iter().map(|(_, field)| {
            let ty = field.ty;
            quote_spanned! {ty.span()=> <#ty as #bundle>::component_ids(components, ids);}
        });
        let get_component_ids = included.iter().map(|(_, field)| {
            let ty = field.ty;
            quote_spanned! {ty.span()=> <#ty as #bundle>::get_component_ids(components, ids);}
        });
        quote! {
            // SAFETY: every method visits the included fields in declaration
            // order and delegates each to the field type's own `Bundle` impl,
            // so they agree on the components and their order.
            #[automatically_derived]
            unsafe impl #impl_generics #bundle for #ident #ty_generics #where_clause {
                #[inline]
                #allow_unused
                fn component_ids(
                    components: &mut #component::Components,
                    ids: &mut impl ::core::ops::FnMut(#component::ComponentId),
                ) {
                    #(#component_ids)*
                }

                #[inline]
                #allow_unused
                fn get_component_ids(
                    components: &#component::Components,
                    ids: &mut impl ::core::ops::FnMut(::core::option::Option<#component::ComponentId>),
                ) {
                    #(#get_component_ids)*
                }
            }
        }
    }

    /// The `BundleFromComponents` impl: the struct rebuilt from the included
    /// fields' components, bounded by each included field type being
    /// `BundleFromComponents` itself.
    fn bundle_from_components_impl(
        &self,
        included: &[(Ident, &BundleField)],
        allow_unused: &Option<TokenStream>,
    ) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
            ..
        } = self;
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let from_components = quote!(#krate::bundle::BundleFromComponents);
        let where_clause = where_clause_with_bounds(
            generics,
            included.iter().map(|(_, field)| field.ty),
            &from_components,
        );
        let construct = self.construct(included, &from_components);
        quote! {
            // SAFETY: reads the included fields in declaration order, the
            // order of the `Bundle` impl, each through the field type's own
            // `BundleFromComponents` impl.
            #[automatically_derived]
            unsafe impl #impl_generics #from_components for #ident #ty_generics #where_clause {
                #[inline]
                #allow_unused
                unsafe fn from_components<__EcsContext, __EcsFunc>(
                    ctx: &mut __EcsContext,
                    func: &mut __EcsFunc,
                ) -> Self
                where
                    __EcsFunc: ::core::ops::FnMut(&mut __EcsContext) -> *mut ::core::primitive::u8,
                {
                    #construct
                }
            }
        }
    }

    /// The `DynamicBundle` impl: hands out the included fields' components,
    /// then drops the ignored fields.
    fn dynamic_bundle_impl(
        &self,
        included: &[(Ident, &BundleField)],
        ignored: &[(Ident, &BundleField)],
        where_clause: &TokenStream,
        allow_unused: &Option<TokenStream>,
    ) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
            ..
        } = self;
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let dynamic_bundle = quote!(#krate::bundle::DynamicBundle);
        let sink = quote!(#krate::bundle::ComponentSink);
        let get_components = included.iter().map(|(binding, field)| {
            let ty = field.ty;
            quote_spanned! {ty.span()=> <#ty as #dynamic_bundle>::get_components(#binding, sink);}
        });
        let drop_unused = ignored.iter().map(|(binding, field)| {
            let ty = field.ty;
            quote_spanned! {ty.span()=> #sink::drop_unused(sink, #binding);}
        });
        let destructure = self.destructure(included, ignored);
        quote! {
            #[automatically_derived]
            impl #impl_generics #dynamic_bundle for #ident #ty_generics #where_clause {
                #[inline]
                #allow_unused
                fn get_components(
                    self,
                    sink: &mut impl #sink,
                ) {
                    #destructure
                    #(#get_components)*
                    #(#drop_unused)*
                }
            }
        }
    }

    /// `Self { .. }` built from the components `func` hands out, with
    /// ignored fields from `Default`.
    ///
    /// Every component is read before any `Default::default()` runs, so a
    /// panicking `default` finds all components already owned by locals
    /// (dropped by the unwind) and none left half-read in the world.
    fn construct(
        &self,
        included: &[(Ident, &BundleField)],
        from_components: &TokenStream,
    ) -> TokenStream {
        let reads = included.iter().map(|(binding, field)| {
            let ty = field.ty;
            // SAFETY: forwarded in order; the caller's guarantee for the
            // whole bundle covers each field's components.
            quote_spanned! {ty.span()=>
                let #binding = unsafe { <#ty as #from_components>::from_components(ctx, func) };
            }
        });
        let mut bindings = included.iter().map(|(binding, _)| binding);
        let values: Vec<TokenStream> = self
            .fields
            .iter()
            .map(|field| {
                let ty = field.ty;
                if field.ignored {
                    quote_spanned! {ty.span()=> <#ty as ::core::default::Default>::default()}
                } else {
                    let binding = bindings.next();
                    quote!(#binding)
                }
            })
            .collect();
        let value = match self.shape {
            Shape::Named => {
                let members = self.fields.iter().map(|field| &field.member);
                quote!(Self { #(#members: #values,)* })
            }
            Shape::Tuple => quote!(Self(#(#values,)*)),
            Shape::Unit => quote!(Self),
        };
        quote! {
            #(#reads)*
            #value
        }
    }

    /// `let Self { a: __ecs_field_0, b: __ecs_ignored_0 } = self;` binding
    /// every field: the ignored ones go to `ComponentSink::drop_unused`
    /// after the components, so a panicking `Drop` finds every component
    /// already handed out.
    fn destructure(
        &self,
        included: &[(Ident, &BundleField)],
        ignored: &[(Ident, &BundleField)],
    ) -> TokenStream {
        if self.fields.is_empty() {
            return TokenStream::new();
        }
        let all = included.iter().chain(ignored);
        let members = all.clone().map(|(_, field)| &field.member);
        let bindings = all.map(|(binding, _)| binding);
        quote!(let Self { #(#members: #bindings,)* } = self;)
    }
}

impl<'a> BundleField<'a> {
    /// The keys `#[bundle(..)]` knows on a field.
    const KEYS: &'static [&'static str] = &["ignore"];

    fn parse(field: &'a Field, member: Member, errors: &mut Errors) -> Self {
        let mut ignored = SetOnce::default();
        for meta in attr::args_of(&field.attrs, "bundle", errors) {
            let key = meta.path();
            if key.is_ident("ignore") {
                if errors
                    .take(attr::flag(&meta, "#[bundle(ignore)]"))
                    .is_some()
                {
                    ignored.set(key, (), errors);
                }
            } else {
                errors.push(attr::unknown_key("bundle", key, Self::KEYS));
            }
        }
        Self {
            member,
            ty: &field.ty,
            ignored: ignored.get().is_some(),
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::test_support::{expand, messages};

    #[test]
    fn fields_are_visited_in_declaration_order() {
        let out = expand(
            derive,
            parse_quote!(
                struct B {
                    z: Z,
                    a: A,
                    m: M,
                }
            ),
        )
        .unwrap();
        let z = out
            .find("< Z as :: ecs :: bundle :: Bundle > :: component_ids")
            .unwrap();
        let a = out
            .find("< A as :: ecs :: bundle :: Bundle > :: component_ids")
            .unwrap();
        let m = out
            .find("< M as :: ecs :: bundle :: Bundle > :: component_ids")
            .unwrap();
        assert!(z < a && a < m, "{out}");
    }

    #[test]
    fn ignored_fields_are_defaulted_and_not_visited() {
        let out = expand(
            derive,
            parse_quote!(
                struct B(A, #[bundle(ignore)] I, C);
            ),
        )
        .unwrap();
        assert!(!out.contains("< I as :: ecs :: bundle"), "{out}");
        assert!(
            out.contains("< I as :: core :: default :: Default > :: default ()"),
            "{out}"
        );
        assert!(
            out.contains(
                "let Self { 0 : __ecs_field_0 , 2 : __ecs_field_1 , 1 : __ecs_ignored_0 , } = self"
            ),
            "{out}"
        );
        // The ignored field is dropped through the sink, after the components.
        let drop_at = out
            .find(":: ecs :: bundle :: ComponentSink :: drop_unused (sink , __ecs_ignored_0)")
            .unwrap_or_else(|| panic!("{out}"));
        assert!(
            out[..drop_at].contains("get_components (__ecs_field_1 , sink)"),
            "{out}"
        );
    }

    #[test]
    fn included_fields_bound_both_impls() {
        let out = expand(
            derive,
            parse_quote!(
                struct B<T: Component>(T, #[bundle(ignore)] I)
                where
                    T: Clone;
            ),
        )
        .unwrap();
        assert_eq!(
            out.matches("where T : Clone , T : :: ecs :: bundle :: Bundle {")
                .count(),
            2,
            "{out}"
        );
        assert!(!out.contains("I : :: ecs :: bundle :: Bundle"), "{out}");
    }

    #[test]
    fn from_components_reads_included_fields_through_their_own_impls() {
        let out = expand(
            derive,
            parse_quote!(
                struct B<T>(T, #[bundle(ignore)] I);
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "unsafe impl < T > :: ecs :: bundle :: BundleFromComponents for B < T > \
                 where T : :: ecs :: bundle :: BundleFromComponents {"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "< T as :: ecs :: bundle :: BundleFromComponents > :: from_components (ctx , func)"
            ),
            "{out}"
        );
    }

    #[test]
    fn ignore_from_components_generates_no_from_components() {
        let out = expand(
            derive,
            parse_quote!(
                #[bundle(ignore_from_components)]
                struct B(A, #[bundle(ignore)] I);
            ),
        )
        .unwrap();
        assert!(!out.contains("BundleFromComponents"), "{out}");
        assert!(!out.contains("Default"), "{out}");
        assert!(
            out.contains("unsafe impl :: ecs :: bundle :: Bundle for B"),
            "{out}"
        );
    }

    #[test]
    fn container_keys_are_checked() {
        let input = parse_quote! {
            #[bundle(ignore_from_components, ignore_from_components)]
            #[bundle(ignore_from_components = true, from_components)]
            struct B;
        };
        assert_eq!(
            messages(derive, input),
            [
                "duplicate key `ignore_from_components`",
                "`ignore_from_components` takes no value: write `#[bundle(ignore_from_components)]`",
                "unknown key `from_components` in `#[bundle(..)]`: expected `ignore_from_components`",
            ]
        );
    }

    #[test]
    fn empty_bundles_allow_their_unused_arguments() {
        for input in [
            parse_quote!(
                struct B;
            ),
            parse_quote!(
                struct B {
                    #[bundle(ignore)]
                    a: A,
                }
            ),
        ] {
            let out = expand(derive, input).unwrap();
            assert_eq!(
                out.matches("# [allow (unused_variables)]").count(),
                4,
                "{out}"
            );
        }
        let out = expand(
            derive,
            parse_quote!(
                struct B(A);
            ),
        )
        .unwrap();
        assert!(!out.contains("unused_variables"), "{out}");
    }

    #[test]
    fn enums_and_unions_are_rejected() {
        assert_eq!(
            messages(
                derive,
                parse_quote!(
                    enum E {
                        A(A),
                    }
                )
            ),
            ["`Bundle` can only be derived for structs: an enum has no fixed set of components"]
        );
        assert_eq!(
            messages(derive, parse_quote!(union U { a: A })),
            ["`Bundle` can only be derived for structs: a union holds only one of its fields at a time"]
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let input = parse_quote! {
            #[bundle(ignore)]
            struct B<'w> {
                #[bundle(ignore = true)]
                a: &'w A,
                #[bundle(skip)]
                b: B,
            }
        };
        assert_eq!(
            messages(derive, input),
            [
                "`Bundle` types must be 'static: remove the lifetime parameter `'w`",
                "`#[bundle(ignore)]` is not allowed on the struct: it leaves a field out of the bundle, so put it on a field",
                "`ignore` takes no value: write `#[bundle(ignore)]`",
                "unknown key `skip` in `#[bundle(..)]`: expected `ignore`",
            ]
        );
    }
}
