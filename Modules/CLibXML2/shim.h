// Typed helpers around libxml2 (2.9.14 on Debian 12, and later) for what Swift cannot do itself:
// the variadic error callbacks of xmlSAXHandler, the xmlFree macro, and hardening a parser
// context in one place. Only CourierXML imports this module, with `internal import`.
#ifndef COURIER_CLIBXML2_SHIM_H
#define COURIER_CLIBXML2_SHIM_H

#include <stdlib.h>
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

// MARK: Decoding encodings only ICU knows

/// Whether libxml2 would decode `name` with an ICU converter: a name that neither libxml2 itself nor
/// iconv knows, but ICU does ("x-sjis", "x-mac-roman", "hz-gb-2312", "UTF_8", "UT-F-8" …). libxml2 2.9
/// flushes that converter at the end of every chunk it is pushed, so a character cut by a chunk fails
/// a document that parses whole, and a bad sequence cut by one is dropped without an error; such
/// documents are decoded by Courier instead (cxml_decoder below). libxml2 2.14 reworked its handlers
/// (the ICU fields are gone, and converters are told when the input ends); there the answer is 0.
static inline int cxml_icu_decodes(const char *name) {
#if defined(LIBXML_ICU_ENABLED) && LIBXML_VERSION < 21400
    xmlCharEncodingHandlerPtr handler = xmlFindCharEncodingHandler(name);
    if (handler == NULL) {
        return 0;
    }
    int icu = handler->uconv_in != NULL;
    xmlCharEncCloseFunc(handler);
    return icu;
#else
    (void)name;
    return 0;
#endif
}

#if defined(LIBXML_ICU_ENABLED) && LIBXML_VERSION < 21400
#include <unicode/ucnv.h>
#include <unicode/ucnv_err.h>

/// An ICU converter from a document's encoding to UTF-8 that keeps its state between pieces: a
/// sequence cut by a piece's end waits for the next piece, and only the last call, with `flush`,
/// says the input has ended.
typedef struct {
    UConverter *source;
    UConverter *utf8;
    UChar pivot[1024];
    UChar *pivotSource;
    UChar *pivotTarget;
} cxml_decoder;
// The functions below take and return `void *`, so Swift sees one type whether or not libxml2 has ICU.

/// A decoder for `name`, or NULL when ICU does not know it. Bytes that are not in the encoding
/// stop the conversion (they are never replaced).
static inline void *cxml_decoder_open(const char *name) {
    UErrorCode status = U_ZERO_ERROR;
    cxml_decoder *decoder = (cxml_decoder *)calloc(1, sizeof(cxml_decoder));
    if (decoder == NULL) {
        return NULL;
    }
    decoder->source = ucnv_open(name, &status);
    if (U_SUCCESS(status)) {
        decoder->utf8 = ucnv_open("UTF-8", &status);
    }
    if (U_SUCCESS(status)) {
        ucnv_setToUCallBack(decoder->source, UCNV_TO_U_CALLBACK_STOP, NULL, NULL, NULL, &status);
    }
    if (U_FAILURE(status)) {
        if (decoder->source != NULL) ucnv_close(decoder->source);
        if (decoder->utf8 != NULL) ucnv_close(decoder->utf8);
        free(decoder);
        return NULL;
    }
    decoder->pivotSource = decoder->pivotTarget = decoder->pivot;
    return decoder;
}

static inline void cxml_decoder_close(void *opaque) {
    cxml_decoder *decoder = (cxml_decoder *)opaque;
    if (decoder == NULL) return;
    ucnv_close(decoder->source);
    ucnv_close(decoder->utf8);
    free(decoder);
}

/// Converts from `input` (`*consumed` bytes are used) into `output` (`*produced` bytes written).
/// Returns 0 when the input is used up (or, with `flush`, ended cleanly), 1 when `output` is full
/// (call again with the rest), -1 when the input holds bytes that are not in the encoding, -2 when,
/// with `flush`, it ends inside a character; `invalid` then receives up to 8 of those bytes and
/// `*invalidCount` their number.
static inline int cxml_decoder_convert(void *opaque, const char *input, long inputCount, long *consumed,
                                        char *output, long outputCount, long *produced, int flush,
                                        char *invalid, int *invalidCount) {
    cxml_decoder *decoder = (cxml_decoder *)opaque;
    UErrorCode status = U_ZERO_ERROR;
    // A NULL source limit means NUL-terminated input to ICU: an empty input needs an address.
    static const char nothing = 0;
    if (input == NULL || inputCount == 0) {
        input = &nothing;
        inputCount = 0;
    }
    const char *source = input;
    char *target = output;
    ucnv_convertEx(decoder->utf8, decoder->source, &target, output + outputCount, &source, input + inputCount,
                   decoder->pivot, &decoder->pivotSource, &decoder->pivotTarget, decoder->pivot + 1024,
                   0, (UBool)(flush != 0), &status);
    *consumed = (long)(source - input);
    *produced = (long)(target - output);
    *invalidCount = 0;
    if (status == U_BUFFER_OVERFLOW_ERROR) {
        return 1;
    }
    if (U_FAILURE(status)) {
        UErrorCode ignored = U_ZERO_ERROR;
        int8_t length = 8;
        ucnv_getInvalidChars(decoder->source, invalid, &length, &ignored);
        *invalidCount = U_SUCCESS(ignored) ? length : 0;
        return status == U_TRUNCATED_CHAR_FOUND ? -2 : -1;
    }
    return 0;
}
#else
static inline void *cxml_decoder_open(const char *name) { (void)name; return NULL; }
static inline void cxml_decoder_close(void *decoder) { (void)decoder; }
static inline int cxml_decoder_convert(void *decoder, const char *input, long inputCount, long *consumed,
                                        char *output, long outputCount, long *produced, int flush,
                                        char *invalid, int *invalidCount) {
    (void)decoder; (void)input; (void)inputCount; (void)output; (void)outputCount; (void)flush; (void)invalid;
    *consumed = 0; *produced = 0; *invalidCount = 0;
    return -1;
}
#endif

/// Bytes libxml2 received but could not decode yet: after the last chunk, a body that ended inside
/// a character of an encoding iconv decodes (libxml2 2.9 keeps them and says nothing).
static inline long cxml_input_undecoded(xmlParserCtxtPtr ctxt) {
    if (ctxt == NULL || ctxt->input == NULL || ctxt->input->buf == NULL || ctxt->input->buf->raw == NULL) {
        return 0;
    }
    return (long)xmlBufUse(ctxt->input->buf->raw);
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
