// cairo, loaded when the first figure is drawn rather than when the process starts (cairo brings about 17
// shared libraries: X11, fontconfig, freetype, png, ...; a `mixgraph` call that draws nothing should not
// map them). The drawing code keeps calling cairo's C API by its own names: this header, included after
// <cairo.h> and only by .cpp files of mixgraph_export, maps each of those names onto a function pointer
// read from libcairo.so.2 on first use. A cairo function used in the drawing code must be listed in
// MIXGRAPH_CAIRO_FUNCTIONS below (the build fails otherwise: the call would link against cairo itself,
// which mixgraph_export does not link).
#pragma once

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

// clang-format off
#define MIXGRAPH_CAIRO_FUNCTIONS(X) \
  X(cairo_arc) \
  X(cairo_clip) \
  X(cairo_close_path) \
  X(cairo_create) \
  X(cairo_destroy) \
  X(cairo_fill) \
  X(cairo_fill_preserve) \
  X(cairo_font_extents) \
  X(cairo_get_font_matrix) \
  X(cairo_get_source) \
  X(cairo_image_surface_create) \
  X(cairo_image_surface_get_data) \
  X(cairo_image_surface_get_stride) \
  X(cairo_line_to) \
  X(cairo_move_to) \
  X(cairo_new_sub_path) \
  X(cairo_paint) \
  X(cairo_pattern_get_rgba) \
  X(cairo_pattern_set_filter) \
  X(cairo_pdf_surface_create_for_stream) \
  X(cairo_rectangle) \
  X(cairo_restore) \
  X(cairo_rotate) \
  X(cairo_save) \
  X(cairo_scale) \
  X(cairo_select_font_face) \
  X(cairo_set_dash) \
  X(cairo_set_font_size) \
  X(cairo_set_line_cap) \
  X(cairo_set_line_join) \
  X(cairo_set_line_width) \
  X(cairo_set_source_rgb) \
  X(cairo_set_source_rgba) \
  X(cairo_set_source_surface) \
  X(cairo_show_text) \
  X(cairo_status) \
  X(cairo_status_to_string) \
  X(cairo_stroke) \
  X(cairo_surface_destroy) \
  X(cairo_surface_finish) \
  X(cairo_surface_flush) \
  X(cairo_surface_mark_dirty) \
  X(cairo_surface_set_device_scale) \
  X(cairo_surface_status) \
  X(cairo_surface_write_to_png_stream) \
  X(cairo_svg_surface_create_for_stream) \
  X(cairo_svg_surface_set_document_unit) \
  X(cairo_text_extents) \
  X(cairo_translate) \
  X(cairo_user_to_device) \
  X(cairo_user_to_device_distance)
// clang-format on

namespace mixgraph::detail {

/// The cairo functions the figures use, each a pointer into libcairo.so.2.
struct CairoApi {
#define MIXGRAPH_CAIRO_MEMBER(f) decltype(&::f) f = nullptr;
  MIXGRAPH_CAIRO_FUNCTIONS(MIXGRAPH_CAIRO_MEMBER)
#undef MIXGRAPH_CAIRO_MEMBER
};

/// True when libcairo.so.2 can be loaded and has every function listed; loads it on the first call
/// (thread-safe, once per process; the library stays loaded). Cost: one dlopen, about a millisecond.
bool cairo_loadable();

/// The loaded functions. Throws RuntimeFailure naming the library and the loader's reason when
/// cairo_loadable() is false.
const CairoApi& cairo_api();

}  // namespace mixgraph::detail

#ifndef MIXGRAPH_CAIRO_API_IMPL
// clang-format off
#define cairo_arc ::mixgraph::detail::cairo_api().cairo_arc
#define cairo_clip ::mixgraph::detail::cairo_api().cairo_clip
#define cairo_close_path ::mixgraph::detail::cairo_api().cairo_close_path
#define cairo_create ::mixgraph::detail::cairo_api().cairo_create
#define cairo_destroy ::mixgraph::detail::cairo_api().cairo_destroy
#define cairo_fill ::mixgraph::detail::cairo_api().cairo_fill
#define cairo_fill_preserve ::mixgraph::detail::cairo_api().cairo_fill_preserve
#define cairo_font_extents ::mixgraph::detail::cairo_api().cairo_font_extents
#define cairo_get_font_matrix ::mixgraph::detail::cairo_api().cairo_get_font_matrix
#define cairo_get_source ::mixgraph::detail::cairo_api().cairo_get_source
#define cairo_image_surface_create ::mixgraph::detail::cairo_api().cairo_image_surface_create
#define cairo_image_surface_get_data ::mixgraph::detail::cairo_api().cairo_image_surface_get_data
#define cairo_image_surface_get_stride ::mixgraph::detail::cairo_api().cairo_image_surface_get_stride
#define cairo_line_to ::mixgraph::detail::cairo_api().cairo_line_to
#define cairo_move_to ::mixgraph::detail::cairo_api().cairo_move_to
#define cairo_new_sub_path ::mixgraph::detail::cairo_api().cairo_new_sub_path
#define cairo_paint ::mixgraph::detail::cairo_api().cairo_paint
#define cairo_pattern_get_rgba ::mixgraph::detail::cairo_api().cairo_pattern_get_rgba
#define cairo_pattern_set_filter ::mixgraph::detail::cairo_api().cairo_pattern_set_filter
#define cairo_pdf_surface_create_for_stream ::mixgraph::detail::cairo_api().cairo_pdf_surface_create_for_stream
#define cairo_rectangle ::mixgraph::detail::cairo_api().cairo_rectangle
#define cairo_restore ::mixgraph::detail::cairo_api().cairo_restore
#define cairo_rotate ::mixgraph::detail::cairo_api().cairo_rotate
#define cairo_save ::mixgraph::detail::cairo_api().cairo_save
#define cairo_scale ::mixgraph::detail::cairo_api().cairo_scale
#define cairo_select_font_face ::mixgraph::detail::cairo_api().cairo_select_font_face
#define cairo_set_dash ::mixgraph::detail::cairo_api().cairo_set_dash
#define cairo_set_font_size ::mixgraph::detail::cairo_api().cairo_set_font_size
#define cairo_set_line_cap ::mixgraph::detail::cairo_api().cairo_set_line_cap
#define cairo_set_line_join ::mixgraph::detail::cairo_api().cairo_set_line_join
#define cairo_set_line_width ::mixgraph::detail::cairo_api().cairo_set_line_width
#define cairo_set_source_rgb ::mixgraph::detail::cairo_api().cairo_set_source_rgb
#define cairo_set_source_rgba ::mixgraph::detail::cairo_api().cairo_set_source_rgba
#define cairo_set_source_surface ::mixgraph::detail::cairo_api().cairo_set_source_surface
#define cairo_show_text ::mixgraph::detail::cairo_api().cairo_show_text
#define cairo_status ::mixgraph::detail::cairo_api().cairo_status
#define cairo_status_to_string ::mixgraph::detail::cairo_api().cairo_status_to_string
#define cairo_stroke ::mixgraph::detail::cairo_api().cairo_stroke
#define cairo_surface_destroy ::mixgraph::detail::cairo_api().cairo_surface_destroy
#define cairo_surface_finish ::mixgraph::detail::cairo_api().cairo_surface_finish
#define cairo_surface_flush ::mixgraph::detail::cairo_api().cairo_surface_flush
#define cairo_surface_mark_dirty ::mixgraph::detail::cairo_api().cairo_surface_mark_dirty
#define cairo_surface_set_device_scale ::mixgraph::detail::cairo_api().cairo_surface_set_device_scale
#define cairo_surface_status ::mixgraph::detail::cairo_api().cairo_surface_status
#define cairo_surface_write_to_png_stream ::mixgraph::detail::cairo_api().cairo_surface_write_to_png_stream
#define cairo_svg_surface_create_for_stream ::mixgraph::detail::cairo_api().cairo_svg_surface_create_for_stream
#define cairo_svg_surface_set_document_unit ::mixgraph::detail::cairo_api().cairo_svg_surface_set_document_unit
#define cairo_text_extents ::mixgraph::detail::cairo_api().cairo_text_extents
#define cairo_translate ::mixgraph::detail::cairo_api().cairo_translate
#define cairo_user_to_device ::mixgraph::detail::cairo_api().cairo_user_to_device
#define cairo_user_to_device_distance ::mixgraph::detail::cairo_api().cairo_user_to_device_distance
// clang-format on
#endif
