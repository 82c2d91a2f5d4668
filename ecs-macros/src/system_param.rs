//! `#[derive(SystemParam)]`: a struct of system parameters becomes one
//! parameter that fetches every field, as a tuple of the field types would.
//!
//! The struct borrows through at most two lifetimes, `'w` (the world) and
//! `'s` (the system's state). Each field's state must outlive every run, so
//! it is named with both replaced by `'static`; what a field yields for one
//! run is that `'static` type's item at the run's lifetimes, which is the
//! field type again:
//!
//! ```text
//! struct Movers<'w, 's> { query: Query<'w, 's, D>, time: Res<'w, Time> }
//!   State            = __EcsSystemParamState {                  (hidden, with the struct's visibility)
//!                          state: (<Query<'static, 'static, D> as SystemParam>::State,
//!                                  <Res<'static, Time> as SystemParam>::State),
//!                      }
//!   Item<'w2, 's2>   = Movers<'w2, 's2>
//!   get_param        = Movers { query: <Query<'static, 'static, D>>::get_param(..), // a Query<'w2, 's2, D>
//!                               time: <Res<'static, Time>>::get_param(..) }        // a Res<'w2, Time>
//! ```
//!
//! The state is a struct rather than the bare tuple so that a public
//! parameter whose fields name private types does not leak them through
//! `SystemParam::State`; it lives with the impl in a `const _: () = { .. };`
//! block, where nothing can name it.
//!
//! The impl is bounded, for each field, by
//! `StaticFieldType: for<'w2, 's2> SystemParam<Item<'w2, 's2> = FieldType>`
//! (the field type with its lifetimes renamed `'w2`, `'s2`), spanned at the
//! field (see [`crate::bounds`]): that is what lets the compiler see, even
//! for a field that names the struct's type parameters, that the item is
//! the field type.
//!
//! The compiler does not check a higher-ranked bound where the impl is
//! declared, only where it is used. So that a wrong field is reported at
//! the field instead, each field whose type names no type parameter also
//! gets a never-called function, spanned at the field, that turns the item
//! of its `'static` form back into the field type:
//!
//! ```text
//! fn __ecs_check_field_1<'w, 's>(item: <Res<'static, Time> as SystemParam>::Item<'w, 's>) -> Res<'w, Time> { item }
//! ```
//!
//! A type that is not a parameter is then "`u32` is not a system
//! parameter" at the field, and a parameter with the wrong lifetime
//! (`Res<'s, Time>`) is a lifetime error there.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{DeriveInput, GenericParam, Generics, Lifetime, Member, Path, Type, Visibility};

use crate::attr::EcsAttr;
use crate::bounds::{last_token_span, respan, where_clause_with_type_bounds};
use crate::errors::Errors;
use crate::fields;
use crate::generics::rename_lifetimes;

mod builder;

/// Expands `#[derive(SystemParam)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(SystemParamInput::parse(input)?.generate())
}

/// The lifetime a parameter borrows the world for.
const WORLD: &str = "w";
/// The lifetime a parameter borrows the system's state for.
const STATE: &str = "s";
/// The names `Item<'w, 's>` and `get_param<'w, 's>` use in the generated
/// impl, distinct from the struct's own `'w` and `'s`, which are the impl's.
const ITEM_WORLD: &str = "__ecs_w";
const ITEM_STATE: &str = "__ecs_s";
/// The hidden struct holding the fields' states. Prefixed, because a user
/// type of the same name in a field would resolve to it.
const STATE_STRUCT: &str = "__EcsSystemParamState";

/// Everything the generated impl depends on.
struct SystemParamInput<'a> {
    ident: &'a Ident,
    vis: &'a Visibility,
    generics: &'a Generics,
    krate: Path,
    fields: Vec<ParamField<'a>>,
    /// `#[system_param(builder)]`: generate `<Name>Builder`.
    builder: bool,
}

/// One field: one system parameter.
struct ParamField<'a> {
    member: Member,
    /// The type as written, with the struct's lifetimes.
    ty: &'a Type,
    /// `ty` with `'w` and `'s` replaced by `'static`: the parameter whose
    /// state the field keeps.
    static_ty: Type,
    /// `ty` with `'w` and `'s` renamed to the item's lifetimes.
    item_ty: TokenStream,
    /// Whether `ty` names a type or const parameter of the struct.
    names_params: bool,
}

impl<'a> SystemParamInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, &mut errors);
        let builder = builder::wanted(&input.attrs, &mut errors);
        for param in input.generics.lifetimes() {
            let lifetime = &param.lifetime;
            let name = lifetime.ident.to_string();
            if name != WORLD && name != STATE {
                errors.push_spanned(
                    lifetime,
                    format!(
                        "`SystemParam` structs take only the lifetimes `'w` (what the fields \
                         borrow from the world) and `'s` (what they borrow from the system's \
                         state): rename or remove `{lifetime}`"
                    ),
                );
            }
        }
        let data = fields::struct_data(
            input,
            "SystemParam",
            "a system is given all of its parameters at once, and an enum holds the fields of \
             only one variant",
            &mut errors,
        );
        let fields = match data {
            Some(data) => fields::with_members(&data.fields)
                .filter_map(|(field, member)| {
                    errors.take(ParamField::new(&field.ty, member, &input.generics))
                })
                .collect(),
            None => Vec::new(),
        };
        errors.check()?;
        Ok(Self {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            krate,
            fields,
            builder,
        })
    }

    fn generate(&self) -> TokenStream {
        let where_clause = self.where_clause();
        let field_checks = self.field_checks();
        let state_struct = self.state_struct(&where_clause);
        let system_param_impl = self.system_param_impl(&where_clause);
        let read_only_impl = self.read_only_impl();
        let (builder_struct, builder_impl) = if self.builder {
            (self.builder_struct(), self.builder_impl(&where_clause))
        } else {
            (TokenStream::new(), TokenStream::new())
        };
        quote! {
            const _: () = {
                #(#field_checks)*
                #state_struct
                #system_param_impl
                #read_only_impl
                #builder_impl
            };
            #builder_struct
        }
    }

    /// `ReadOnlySystemParam` for the struct when every field is one: the
    /// `SystemParam` impl's where clause plus
    /// `StaticFieldType: for<'a> ReadOnlySystemParam` per field. The
    /// binder keeps a field that names no generic from being a bound the
    /// compiler rejects as never holding; such a struct is then simply
    /// not read-only.
    fn read_only_impl(&self) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
            fields,
            ..
        } = self;
        let system_param = self.system_param();
        let (item_w, item_s) = Self::item_lifetimes();
        let read_only = quote!(#krate::system::ReadOnlySystemParam);
        let where_clause = where_clause_with_type_bounds(
            generics,
            fields
                .iter()
                .map(|field| {
                    let item_ty = &field.item_ty;
                    let bound = quote! {
                        for<#item_w, #item_s> #system_param<Item<#item_w, #item_s> = #item_ty>
                    };
                    (&field.static_ty, bound)
                })
                .chain(
                    fields
                        .iter()
                        .map(|field| (&field.static_ty, quote!(for<#item_w> #read_only))),
                ),
        );
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        quote! {
            // SAFETY: every field is a `ReadOnlySystemParam` (the where
            // clause), and the struct records and fetches exactly its
            // fields.
            #[automatically_derived]
            unsafe impl #impl_generics #read_only for #ident #ty_generics #where_clause {}
        }
    }

    /// `#krate::system::SystemParam`.
    fn system_param(&self) -> TokenStream {
        let krate = &self.krate;
        quote!(#krate::system::SystemParam)
    }

    /// The lifetimes of `Item<'w, 's>` and `get_param<'w, 's>`.
    fn item_lifetimes() -> (Lifetime, Lifetime) {
        (
            Lifetime::new(&format!("'{ITEM_WORLD}"), Span::call_site()),
            Lifetime::new(&format!("'{ITEM_STATE}"), Span::call_site()),
        )
    }

    /// The impl's where clause: the user's, then
    /// `StaticFieldType: for<'w, 's> SystemParam<Item<'w, 's> = FieldType>`
    /// for each field (see the module docs).
    fn where_clause(&self) -> TokenStream {
        let system_param = self.system_param();
        let (item_w, item_s) = Self::item_lifetimes();
        where_clause_with_type_bounds(
            self.generics,
            self.fields.iter().map(|field| {
                let item_ty = &field.item_ty;
                let bound = quote! {
                    for<#item_w, #item_s> #system_param<Item<#item_w, #item_s> = #item_ty>
                };
                (&field.static_ty, bound)
            }),
        )
    }

    /// The check of each field that names no type parameter (see
    /// [`ParamField::check`]).
    fn field_checks(&self) -> Vec<TokenStream> {
        let system_param = self.system_param();
        self.fields
            .iter()
            .enumerate()
            .filter(|(_, field)| !field.names_params)
            .map(|(i, field)| field.check(i, self.generics, &system_param))
            .collect()
    }

    /// `<StaticFieldType as SystemParam>::method` for each field, spanned at
    /// its type, so that anything left for the compiler to report about a
    /// field is reported there.
    fn each(&self, method: TokenStream) -> Vec<TokenStream> {
        let system_param = self.system_param();
        self.fields
            .iter()
            .map(|field| {
                let static_ty = &field.static_ty;
                quote_spanned! {field.ty.span()=> <#static_ty as #system_param>::#method}
            })
            .collect()
    }

    /// The hidden struct holding the fields' states. Its where clause is the
    /// impl's, with `'w` and `'s` (which the state cannot name) as
    /// `'static`.
    fn state_struct(&self, where_clause: &TokenStream) -> TokenStream {
        let vis = self.vis;
        let state_struct = Ident::new(STATE_STRUCT, Span::call_site());
        let state_generics = state_generics(self.generics);
        let state_where_clause = rename_lifetimes(
            where_clause.clone(),
            &[(WORLD, "static"), (STATE, "static")],
        );
        let states = self.each(quote!(State));
        quote! {
            // The fields' states: a struct with the user's visibility,
            // so that `SystemParam::State` names no type more private
            // than the user's struct.
            #[doc(hidden)]
            #vis struct #state_struct #state_generics #state_where_clause {
                state: (#(#states,)*),
            }
        }
    }

    /// The `SystemParam` impl: each method visits every field's state in
    /// declaration order.
    fn system_param_impl(&self, where_clause: &TokenStream) -> TokenStream {
        let Self {
            ident,
            generics,
            krate,
            fields,
            ..
        } = self;
        let system_param = self.system_param();
        let system_meta = quote!(#krate::system::SystemMeta);
        let world = quote!(#krate::world::World);
        let (impl_generics, ty_generics, _) = generics.split_for_impl();
        let (item_w, item_s) = Self::item_lifetimes();
        let item_generics = rename_to_item_lifetimes(ty_generics.to_token_stream());
        let state_struct = Ident::new(STATE_STRUCT, Span::call_site());
        let state_generics = state_generics(generics);
        let (_, state_ty_generics, _) = state_generics.split_for_impl();
        let bindings: Vec<Ident> = (0..fields.len())
            .map(|i| format_ident!("__ecs_state_{}", i))
            .collect();
        // A struct without fields ignores its arguments, and its state is
        // `()`.
        let allow_unused = fields
            .is_empty()
            .then(|| quote!(#[allow(unused_variables, clippy::unused_unit)]));
        let init_state = self.each(quote!(init_state));
        let get_param = self.each(quote!(get_param));
        let try_get_param = self.each(quote!(try_get_param));
        let apply = self.each(quote!(apply));
        let queue = self.each(quote!(queue));
        let members: Vec<&Member> = fields.iter().map(|field| &field.member).collect();
        let field_names = members.iter().map(|member| match member {
            Member::Named(ident) => format!("::{ident}"),
            Member::Unnamed(index) => format!("::{}", index.index),
        });
        quote! {
            // SAFETY: `init_state` builds every field's state with the same
            // `meta`, so the access recorded is the union of the fields'
            // accesses (and two fields that conflict panic there, as two
            // parameters of one system do). `get_param` fetches each field
            // from its own state, under the caller's guarantee for that
            // recorded access, exactly as a tuple of the field types does.
            #[automatically_derived]
            unsafe impl #impl_generics #system_param for #ident #ty_generics #where_clause {
                type State = #state_struct #state_ty_generics;
                type Item<#item_w, #item_s> = #ident #item_generics;

                #allow_unused
                fn init_state(world: &mut #world, meta: &mut #system_meta) -> Self::State {
                    #state_struct {
                        state: (#(#init_state(world, meta),)*),
                    }
                }

                #[inline]
                #allow_unused
                unsafe fn get_param<#item_w, #item_s>(
                    state: &#item_s mut Self::State,
                    meta: &#system_meta,
                    world: #krate::world::UnsafeWorldCell<#item_w>,
                    change_tick: #krate::change_detection::Tick,
                ) -> Self::Item<#item_w, #item_s> {
                    let (#(#bindings,)*) = &mut state.state;
                    #ident {
                        // SAFETY: forwarded; the caller's guarantee for the
                        // struct covers each field's recorded access.
                        #(#members: unsafe { #get_param(#bindings, meta, world, change_tick) },)*
                    }
                }

                #[inline]
                #allow_unused
                unsafe fn try_get_param<#item_w, #item_s>(
                    state: &#item_s mut Self::State,
                    meta: &#system_meta,
                    world: #krate::world::UnsafeWorldCell<#item_w>,
                    change_tick: #krate::change_detection::Tick,
                ) -> ::core::result::Result<Self::Item<#item_w, #item_s>, #krate::system::SystemParamValidationError> {
                    let (#(#bindings,)*) = &mut state.state;
                    ::core::result::Result::Ok(#ident {
                        // SAFETY: as in `get_param`; a field that fails
                        // validation fails the struct, naming the field.
                        #(#members: match unsafe { #try_get_param(#bindings, meta, world, change_tick) } {
                            ::core::result::Result::Ok(item) => item,
                            ::core::result::Result::Err(mut error) => {
                                error.field = ::core::convert::Into::into(#field_names);
                                return ::core::result::Result::Err(error);
                            }
                        },)*
                    })
                }

                #allow_unused
                fn apply(state: &mut Self::State, world: &mut #world) {
                    let (#(#bindings,)*) = &mut state.state;
                    #(#apply(#bindings, world);)*
                }

                #allow_unused
                fn queue(state: &mut Self::State, queue: &mut #krate::system::CommandQueue) {
                    let (#(#bindings,)*) = &mut state.state;
                    #(#queue(#bindings, queue);)*
                }
            }
        }
    }
}

impl<'a> ParamField<'a> {
    fn new(ty: &'a Type, member: Member, generics: &Generics) -> syn::Result<Self> {
        let to_static = rename_lifetimes(
            ty.to_token_stream(),
            &[(WORLD, "static"), (STATE, "static")],
        );
        // Renaming lifetimes keeps the tokens a type; this only fails for a
        // type no field could have.
        let static_ty = syn::parse2(to_static).map_err(|error| {
            syn::Error::new_spanned(
                ty,
                format!("cannot name this field type with `'w` and `'s` as `'static`: {error}"),
            )
        })?;
        Ok(Self {
            member,
            ty,
            static_ty,
            item_ty: rename_to_item_lifetimes(ty.to_token_stream()),
            names_params: mentions_params(ty.to_token_stream(), generics),
        })
    }
}

impl ParamField<'_> {
    /// A never-called function that yields the field type from the item of
    /// its `'static` form, for a field that names no type parameter.
    ///
    /// See the module docs: the impl's higher-ranked bound on the field is
    /// only checked where the struct is used; this checks the same thing
    /// where it is declared. A field that names a type parameter can only
    /// be checked where the struct is used, with the parameter known.
    fn check(&self, index: usize, generics: &Generics, system_param: &TokenStream) -> TokenStream {
        let Self { ty, static_ty, .. } = self;
        let name = format_ident!("__ecs_check_field_{}", index);
        // The struct's own `'w` and `'s` where it has them, so that a
        // lifetime error names them there.
        let lifetime = |name: &str| {
            generics
                .lifetimes()
                .map(|param| param.lifetime.clone())
                .find(|lifetime| lifetime.ident == name)
                .unwrap_or_else(|| Lifetime::new(&format!("'{name}"), Span::call_site()))
        };
        let (w, s) = (lifetime(WORLD), lifetime(STATE));
        // `<StaticFieldType as SystemParam>::Item<'w, 's>`, spanned from the
        // field type's first token to its last, so the whole type is
        // underlined.
        let open = quote_spanned!(ty.span()=> <);
        let item = respan(quote!(as #system_param>::Item<#w, #s>), last_token_span(ty));
        quote_spanned! {ty.span()=>
            #[allow(dead_code, clippy::type_complexity)]
            fn #name<#w, #s>(item: #open #static_ty #item) -> #ty {
                item
            }
        }
    }
}

/// Whether `tokens` name one of the type or const parameters of
/// `generics` (or `Self`), at any depth. An identifier of the same name
/// used otherwise (a module, a field) counts too, which only adds a bound.
fn mentions_params(tokens: TokenStream, generics: &Generics) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => {
            ident == "Self"
                || generics.type_params().any(|param| param.ident == ident)
                || generics.const_params().any(|param| param.ident == ident)
        }
        TokenTree::Group(group) => mentions_params(group.stream(), generics),
        _ => false,
    })
}

/// The struct's generics without its lifetimes (a state is `'static`), and
/// with `'w` and `'s` in the remaining bounds as `'static`.
fn state_generics(generics: &Generics) -> Generics {
    let mut state = generics.clone();
    state.params = generics
        .params
        .iter()
        .filter(|param| !matches!(param, GenericParam::Lifetime(_)))
        .cloned()
        .collect();
    // The where clause is written by the caller.
    state.where_clause = None;
    let tokens = rename_lifetimes(
        state.to_token_stream(),
        &[(WORLD, "static"), (STATE, "static")],
    );
    syn::parse2(tokens).unwrap_or(state)
}

/// `tokens` with the struct's `'w` and `'s` renamed to the item's.
fn rename_to_item_lifetimes(tokens: TokenStream) -> TokenStream {
    rename_lifetimes(tokens, &[(WORLD, ITEM_WORLD), (STATE, ITEM_STATE)])
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::test_support::{expand, messages};

    #[test]
    fn state_is_each_field_at_static_lifetimes() {
        let out = expand(
            derive,
            parse_quote!(
                struct Movers<'w, 's> {
                    query: Query<'w, 's, &'static A>,
                    time: Res<'w, Time>,
                    count: Local<'s, u32>,
                }
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "struct __EcsSystemParamState where Query < 'static , 'static , & 'static A > : \
                 for < '__ecs_w , '__ecs_s > :: ecs :: system :: SystemParam < Item < '__ecs_w , '__ecs_s > = \
                 Query < '__ecs_w , '__ecs_s , & 'static A > > , Res < 'static , Time > : for"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "{ state : (< Query < 'static , 'static , & 'static A > as :: ecs :: system :: SystemParam > :: State , \
                 < Res < 'static , Time > as :: ecs :: system :: SystemParam > :: State , \
                 < Local < 'static , u32 > as :: ecs :: system :: SystemParam > :: State ,) , }"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "type State = __EcsSystemParamState ; \
                 type Item < '__ecs_w , '__ecs_s > = Movers < '__ecs_w , '__ecs_s > ;"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "unsafe impl < 'w , 's > :: ecs :: system :: SystemParam for Movers < 'w , 's > \
                 where Query < 'static , 'static , & 'static A > : for < '__ecs_w , '__ecs_s > \
                 :: ecs :: system :: SystemParam < Item < '__ecs_w , '__ecs_s > = \
                 Query < '__ecs_w , '__ecs_s , & 'static A > > ,"
            ),
            "{out}"
        );
    }

    #[test]
    fn read_only_when_every_field_is() {
        let out = expand(
            derive,
            parse_quote!(
                struct P<'w, T: Resource>(Res<'w, T>, Local<'static, u8>);
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "unsafe impl < 'w , T : Resource > :: ecs :: system :: ReadOnlySystemParam \
                 for P < 'w , T >"
            ),
            "{out}"
        );
        assert!(
            out.contains(
                "Res < 'static , T > : for < '__ecs_w > :: ecs :: system :: ReadOnlySystemParam , \
                 Local < 'static , u8 > : for < '__ecs_w > :: ecs :: system :: ReadOnlySystemParam"
            ),
            "{out}"
        );
    }

    #[test]
    fn get_param_builds_the_struct_field_by_field() {
        let out = expand(
            derive,
            parse_quote!(
                struct P<'s, T: Default + Send + Sync + 'static>(Local<'s, T>, Local<'s, u8>);
            ),
        )
        .unwrap();
        assert!(
            out.contains("let (__ecs_state_0 , __ecs_state_1 ,) = & mut state . state ;"),
            "{out}"
        );
        assert!(
            out.contains(
                "P { 0 : unsafe { < Local < 'static , T > as :: ecs :: system :: SystemParam > \
                 :: get_param (__ecs_state_0 , meta , world , change_tick) } , 1 : unsafe"
            ),
            "{out}"
        );
        assert!(
            out.contains("type Item < '__ecs_w , '__ecs_s > = P < '__ecs_s , T > ;"),
            "{out}"
        );
    }

    #[test]
    fn fields_without_type_parameters_are_checked_where_declared() {
        let out = expand(
            derive,
            parse_quote!(
                struct P<'w, 's, T: Resource, const N: usize> {
                    time: Res<'w, Time>,
                    generic: Res<'w, T>,
                    array: Local<'s, [u8; N]>,
                    commands: Commands<'w, 's>,
                }
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "fn __ecs_check_field_0 < 'w , 's > (item : < Res < 'static , Time > as \
                 :: ecs :: system :: SystemParam > :: Item < 'w , 's >) -> Res < 'w , Time > { item }"
            ),
            "{out}"
        );
        assert!(out.contains("fn __ecs_check_field_3 < 'w , 's >"), "{out}");
        assert!(!out.contains("__ecs_check_field_1"), "{out}");
        assert!(!out.contains("__ecs_check_field_2"), "{out}");
    }

    #[test]
    fn the_state_has_no_lifetimes() {
        let out = expand(
            derive,
            parse_quote!(
                pub(crate) struct P<'w, T: Resource + 'w>
                where
                    T: 'w,
                {
                    r: Res<'w, T>,
                }
            ),
        )
        .unwrap();
        assert!(
            out.contains(
                "pub (crate) struct __EcsSystemParamState < T : Resource + 'static > where T : 'static ,"
            ),
            "{out}"
        );
        assert!(
            out.contains("type State = __EcsSystemParamState < T > ;"),
            "{out}"
        );
    }

    #[test]
    fn unit_struct_is_the_empty_parameter() {
        let out = expand(
            derive,
            parse_quote!(
                struct Nothing;
            ),
        )
        .unwrap();
        assert!(
            out.contains("struct __EcsSystemParamState { state : () , }"),
            "{out}"
        );
        assert!(
            out.contains("let () = & mut state . state ; Nothing { }"),
            "{out}"
        );
        assert_eq!(
            out.matches("# [allow (unused_variables , clippy :: unused_unit)]")
                .count(),
            5,
            "{out}"
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let input = parse_quote! {
            #[ecs(krate = ecs)]
            struct P<'w, 'a, 'b> {
                f: Res<'w, R>,
            }
        };
        assert_eq!(
            messages(derive, input),
            [
                "unknown key `krate` in `#[ecs(..)]`: expected `crate`",
                "`SystemParam` structs take only the lifetimes `'w` (what the fields borrow from \
                 the world) and `'s` (what they borrow from the system's state): rename or remove `'a`",
                "`SystemParam` structs take only the lifetimes `'w` (what the fields borrow from \
                 the world) and `'s` (what they borrow from the system's state): rename or remove `'b`",
            ]
        );
    }

    #[test]
    fn enums_and_unions_are_rejected() {
        assert_eq!(
            messages(
                derive,
                parse_quote!(
                    enum E<'w> {
                        A(Res<'w, R>),
                    }
                )
            ),
            [
                "`SystemParam` can only be derived for structs: a system is given all of its \
              parameters at once, and an enum holds the fields of only one variant"
            ]
        );
        assert_eq!(
            messages(
                derive,
                parse_quote!(
                    union U {
                        a: u8,
                    }
                )
            ),
            [
                "`SystemParam` can only be derived for structs: a union holds only one of its \
              fields at a time"
            ]
        );
    }
}
