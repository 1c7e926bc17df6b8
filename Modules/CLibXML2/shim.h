// Typed helpers around libxml2 (2.9.14 on Debian 12, and later) for what Swift cannot do itself:
// the variadic error callbacks of xmlSAXHandler, the xmlFree macro, and hardening a parser
// context in one place. Only CourierXML imports this module, with `internal import`.
#ifndef COURIER_CLIBXML2_SHIM_H
#define COURIER_CLIBXML2_SHIM_H

#include <string.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/encoding.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlsave.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

// MARK: Memory

/// `xmlFree` is a macro over a per-thread function pointer when libxml2 is built with
/// LIBXML_THREAD_ALLOC_ENABLED (as Debian's is).
static inline void cxml_free(void *pointer) {
    xmlFree(pointer);
}

// MARK: SAX handlers

/// A handler that builds a tree (libxml2's SAX2 defaults) but reports errors only through the
/// structured `serror` callback: the variadic `error`, `warning` and `fatalError` callbacks,
/// which Swift cannot implement, are cleared so nothing is ever printed to stderr.
static inline void cxml_sax_init_tree_builder(xmlSAXHandler *sax) {
    memset(sax, 0, sizeof(*sax));
    xmlSAXVersion(sax, 2);
    sax->error = NULL;
    sax->warning = NULL;
    sax->fatalError = NULL;
}

/// An empty SAX2 handler (every callback NULL, `initialized` = XML_SAX2_MAGIC so the namespace
/// aware startElementNs/endElementNs and `serror` are used).
static inline void cxml_sax_init_empty(xmlSAXHandler *sax) {
    memset(sax, 0, sizeof(*sax));
    sax->initialized = XML_SAX2_MAGIC;
}

// MARK: Parser contexts

/// The parse options every Courier parser uses: no network (XML_PARSE_NONET), nothing printed
/// (NOERROR, NOWARNING). Entities are not substituted (no XML_PARSE_NOENT), no external subset is
/// loaded (no DTDLOAD), no default attributes come from a DTD (no DTDATTR), no validation,
/// no XInclude, and libxml2's hard limits stay on (no XML_PARSE_HUGE).
static const int cxml_safe_options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;

/// Applies `cxml_safe_options` (plus `extra`) and then sets the fields those options leave to
/// libxml2's per-thread global defaults (xmlSubstituteEntitiesDefault, xmlLoadExtDtdDefaultValue,
/// xmlKeepBlanksDefault…), so another library in the process that changed a default cannot
/// turn entity substitution or DTD loading back on for our parsers. Returns xmlCtxtUseOptions'
/// result (0 on success).
static inline int cxml_harden(xmlParserCtxtPtr ctxt, int extra) {
    int result = xmlCtxtUseOptions(ctxt, cxml_safe_options | extra);
    ctxt->replaceEntities = 0;
    ctxt->loadsubset = 0;
    ctxt->validate = 0;
    ctxt->pedantic = 0;
    ctxt->linenumbers = 1;
    if ((extra & XML_PARSE_NOBLANKS) == 0) {
        ctxt->keepBlanks = 1;
    }
    return result;
}

/// How far the parser still is from the end of the input it holds (0: it reached the end).
static inline long cxml_input_remaining(xmlParserCtxtPtr ctxt) {
    if (ctxt == NULL || ctxt->input == NULL || ctxt->input->cur == NULL || ctxt->input->end == NULL) {
        return 0;
    }
    return (long)(ctxt->input->end - ctxt->input->cur);
}

/// Whether the text libxml2 has decoded into its input buffer (UTF-8, whatever the document's
/// encoding) holds anything but XML white space and a leading byte-order mark, or as much of one as
/// has arrived (libxml2 may stop on its first two bytes before the third comes).
static inline int cxml_input_holds_content(xmlParserCtxtPtr ctxt) {
    if (ctxt == NULL || ctxt->input == NULL || ctxt->input->base == NULL || ctxt->input->end == NULL) {
        return 0;
    }
    const xmlChar *cursor = ctxt->input->base;
    const xmlChar *end = ctxt->input->end;
    static const xmlChar byteOrderMark[3] = {0xEF, 0xBB, 0xBF};
    for (int index = 0; index < 3 && cursor < end && *cursor == byteOrderMark[index]; index++) {
        cursor++;
    }
    for (; cursor < end; cursor++) {
        if (*cursor != 0x20 && *cursor != 0x09 && *cursor != 0x0A && *cursor != 0x0D) {
            return 1;
        }
    }
    return 0;
}

/// Whether libxml2 decodes the document with an ICU converter: true when the encoding named by
/// the document or the charset is one that neither libxml2 itself nor iconv knows, but ICU does
/// ("x-sjis", "x-mac-roman", "hz-gb-2312", "UTF_8", "UT-F-8" …). libxml2 2.9 flushes that converter
/// at the end of every pushed chunk, so a character cut by a chunk boundary is an error there
/// (one that parses whole fails) and an invalid sequence cut by one is dropped without an
/// error (a document that fails whole parses). PushParser therefore gives the rest of such a
/// document to libxml2 in one piece. libxml2 2.14 reworked its handlers (converters are told
/// when the input ends, and the ICU fields are gone); there the check answers 0.
static inline int cxml_input_decodes_with_icu(xmlParserCtxtPtr ctxt) {
#if defined(LIBXML_ICU_ENABLED) && LIBXML_VERSION < 21400
    if (ctxt == NULL || ctxt->input == NULL || ctxt->input->buf == NULL || ctxt->input->buf->encoder == NULL) {
        return 0;
    }
    return ctxt->input->buf->encoder->uconv_in != NULL;
#else
    (void)ctxt;
    return 0;
#endif
}

// MARK: libxml2's generic (printf-style) error channel

/// A few libxml2 paths report through the generic error channel directly, bypassing the
/// structured handlers (e.g. XPath's "function … not found"). That channel is per thread in a
/// threaded libxml2 (Debian's is), so a call that must not print silences it on its own thread
/// for the duration of one synchronous libxml2 call, and restores it afterwards.
typedef struct {
    xmlGenericErrorFunc function;
    void *context;
} cxml_generic_error_handler;

static void cxml_ignore_generic_error(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

static inline cxml_generic_error_handler cxml_silence_generic_errors(void) {
    cxml_generic_error_handler saved = { xmlGenericError, xmlGenericErrorContext };
    xmlSetGenericErrorFunc(NULL, cxml_ignore_generic_error);
    return saved;
}

static inline void cxml_restore_generic_errors(cxml_generic_error_handler saved) {
    xmlSetGenericErrorFunc(saved.context, saved.function);
}

/// libxml2's per-thread error channels for errors raised without a parser context.
typedef struct {
    cxml_generic_error_handler generic;
    xmlStructuredErrorFunc structured;
    void *structuredContext;
} cxml_error_channels;

/// For one synchronous parsing call on this thread: nothing is printed, and the errors libxml2
/// raises without a parser context go to `handler` with `context`. A converter's "input conversion
/// failed due to input error" is one: libxml2 2.9 reports it only there, and its parser goes on
/// past the bytes it could not decode when the same call decoded others before them.
static inline cxml_error_channels cxml_route_context_free_errors(xmlStructuredErrorFunc handler, void *context) {
    cxml_error_channels saved = { cxml_silence_generic_errors(), xmlStructuredError, xmlStructuredErrorContext };
    xmlSetStructuredErrorFunc(context, handler);
    return saved;
}

static inline void cxml_restore_error_channels(cxml_error_channels saved) {
    xmlSetStructuredErrorFunc(saved.structuredContext, saved.structured);
    cxml_restore_generic_errors(saved.generic);
}

// MARK: Output

/// Serializes `doc` indented (what `xmllint --format` does), UTF-8. The caller frees `*out`
/// with cxml_free.
static inline void cxml_dump_formatted(xmlDocPtr doc, xmlChar **out, int *size) {
    xmlDocDumpFormatMemoryEnc(doc, out, size, "UTF-8", 1);
}

#endif
