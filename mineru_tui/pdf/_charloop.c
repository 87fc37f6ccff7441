/* The character loop of mineru_tui/pdf/chars.py in C: the same PDFium calls, the same
 * arithmetic, the same Char records, without a Python round trip per PDFium call.
 *
 * Optional (setup.py builds it when a compiler is there; chars.py falls back to its own
 * loop when it is missing). It does not link to PDFium: chars.py passes the addresses of
 * pypdfium2's PDFium functions, so both loops call the very same library. The caller holds
 * PDFium's lock (mineru_tui/pdf/pdfium.py) for the whole call.
 *
 * Built with -ffp-contract=off: a fused multiply-add would round differently from
 * Python's float arithmetic, and the boxes must be equal to the last bit
 * (tests/pdf/test_char_loop.py compares both loops on every corpus PDF).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

typedef void *TextPage;
typedef struct { float left, top, right, bottom; } RectF; /* PDFium's FS_RECTF */

typedef unsigned int (*GetUnicode)(TextPage, int);
typedef int (*IntAt)(TextPage, int);
typedef int (*GetCharBox)(TextPage, int, double *, double *, double *, double *);
typedef int (*GetLooseCharBox)(TextPage, int, RectF *);
typedef int (*GetCharOrigin)(TextPage, int, double *, double *);
typedef float (*GetCharAngle)(TextPage, int);
typedef void *(*GetTextObject)(TextPage, int);
typedef double (*GetFontSize)(TextPage, int);

/* the order of chars._AddressTyped.NAMES */
enum { F_UNICODE, F_GENERATED, F_BOX, F_LOOSE, F_ORIGIN, F_ANGLE, F_HYPHEN, F_OBJECT,
       F_MAP_ERROR, F_FONT_SIZE, N_FUNCTIONS };

/* a display-frame box from two user-space corners, as chars.py computes it */
static PyObject *
display_box(double left, double right, double bottom, double top, const double *m)
{
    double x0 = m[0], y0 = m[1], ua = m[2], ub = m[3], va = m[4], vb = m[5];
    double lx = left - x0, rx = right - x0, by = bottom - y0, ty = top - y0;
    double u1 = ua * lx + ub * by, v1 = va * lx + vb * by;
    double u2 = ua * rx + ub * ty, v2 = va * rx + vb * ty;
    return Py_BuildValue("(dddd)", u1 < u2 ? u1 : u2, v1 < v2 ? v1 : v2,
                         u1 < u2 ? u2 : u1, v1 < v2 ? v2 : v1);
}

static unsigned int
code_at(PyObject *codes, GetUnicode get_unicode, TextPage tp, Py_ssize_t i)
{
    if (codes != Py_None)
        return (unsigned int)PyLong_AsUnsignedLong(PyList_GET_ITEM(codes, i));
    return get_unicode(tp, (int)i);
}

/* read_chars(tp, n, codes, functions, matrix, turn, facts, char_class) -> list of Char
 *
 * tp: the text page's address; codes: its UTF-16 units (a list of n ints) or None;
 * functions: the addresses of chars._AddressTyped.NAMES; matrix: (x0, y0, ua, ub, va, vb),
 * user space to the display frame; turn(raw_angle) -> (direction, tilt);
 * facts(text object address) -> (visible, size, bold, italic); char_class: chars.Char. */
/* fn(key), asked once per key: the answer kept in `cache` (a new reference; NULL on error) */
static PyObject *
remembered(PyObject *cache, PyObject *fn, PyObject *key)
{
    PyObject *value = PyDict_GetItemWithError(cache, key);
    if (value) {
        Py_INCREF(value);
        return value;
    }
    if (PyErr_Occurred())
        return NULL;
    value = PyObject_CallOneArg(fn, key);
    if (value && PyDict_SetItem(cache, key, value) < 0)
        Py_CLEAR(value);
    return value;
}

static PyObject *
read_chars(PyObject *self, PyObject *args)
{
    unsigned long long tp_address;
    Py_ssize_t n;
    PyObject *codes, *functions, *matrix, *turn, *facts, *char_class;
    if (!PyArg_ParseTuple(args, "KnOO!O!OOO", &tp_address, &n, &codes, &PyTuple_Type,
                          &functions, &PyTuple_Type, &matrix, &turn, &facts, &char_class))
        return NULL;
    if (PyTuple_GET_SIZE(functions) != N_FUNCTIONS || PyTuple_GET_SIZE(matrix) != 6) {
        PyErr_SetString(PyExc_ValueError, "read_chars: 10 functions and a 6-number matrix");
        return NULL;
    }
    if (codes != Py_None && (!PyList_Check(codes) || PyList_GET_SIZE(codes) < n)) {
        PyErr_SetString(PyExc_ValueError, "read_chars: codes must be a list of n ints or None");
        return NULL;
    }
    void *f[N_FUNCTIONS];
    for (int k = 0; k < N_FUNCTIONS; k++) {
        f[k] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(functions, k));
        if (f[k] == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "read_chars: a NULL function");
            return NULL;
        }
    }
    double m[6];
    for (int k = 0; k < 6; k++) {
        m[k] = PyFloat_AsDouble(PyTuple_GET_ITEM(matrix, k));
        if (m[k] == -1.0 && PyErr_Occurred())
            return NULL;
    }
    TextPage tp = (TextPage)(uintptr_t)tp_address;
    GetUnicode get_unicode = (GetUnicode)f[F_UNICODE];
    IntAt is_generated = (IntAt)f[F_GENERATED], is_hyphen = (IntAt)f[F_HYPHEN];
    IntAt map_error_at = (IntAt)f[F_MAP_ERROR];
    GetCharBox get_box = (GetCharBox)f[F_BOX];
    GetLooseCharBox get_loose = (GetLooseCharBox)f[F_LOOSE];
    GetCharOrigin get_origin = (GetCharOrigin)f[F_ORIGIN];
    GetCharAngle get_angle = (GetCharAngle)f[F_ANGLE];
    GetTextObject get_object = (GetTextObject)f[F_OBJECT];
    GetFontSize font_size_at = (GetFontSize)f[F_FONT_SIZE];

    PyObject *out = PyList_New(0);
    PyObject *objects = PyDict_New(), *turns = PyDict_New(), *angles = PyDict_New();
    if (!out || !objects || !turns || !angles)
        goto fail;
    /* like chars.py's output buffers, kept from one character to the next */
    double left = 0, right = 0, bottom = 0, top = 0, ox = 0, oy = 0;
    RectF loose = {0, 0, 0, 0};
    int low_half = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned int code = code_at(codes, get_unicode, tp, i);
        if (code == (unsigned int)-1 && PyErr_Occurred())
            goto fail;
        if (low_half) {
            low_half = 0;
            continue;
        }
        int generated = (code == 0x20 || code == 0x0D || code == 0x0A)
                        && is_generated(tp, (int)i) != 0;
        if (generated && code != 0x20)
            continue;
        if (code >= 0xD800 && code <= 0xDBFF && i + 1 < n) {
            unsigned int low = code_at(codes, get_unicode, tp, i + 1);
            if (low == (unsigned int)-1 && PyErr_Occurred())
                goto fail;
            if (low >= 0xDC00 && low <= 0xDFFF) {
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                low_half = 1;
            }
        }
        Py_UCS4 ch = (code > 0 && code < 0x110000 && !(code >= 0xD800 && code <= 0xDFFF))
                     ? (Py_UCS4)code : 0xFFFD;
        get_box(tp, (int)i, &left, &right, &bottom, &top);
        get_origin(tp, (int)i, &ox, &oy);
        get_loose(tp, (int)i, &loose);
        PyObject *tight = display_box(left, right, bottom, top, m);
        PyObject *loose_box = display_box((double)loose.left, (double)loose.right,
                                          (double)loose.bottom, (double)loose.top, m);
        if (!tight || !loose_box) {
            Py_XDECREF(tight);
            Py_XDECREF(loose_box);
            goto fail;
        }
        double t0 = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(tight, 0));
        double t1 = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(tight, 1));
        double t2 = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(tight, 2));
        double t3 = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(tight, 3));
        if ((t2 - t0 <= 0 || t3 - t1 <= 0) && !Py_UNICODE_ISSPACE(ch)) {
            Py_DECREF(tight);
            Py_INCREF(loose_box);
            tight = loose_box;
        }
        double dx = ox - m[0], dy = oy - m[1];
        PyObject *origin = Py_BuildValue("(dd)", m[2] * dx + m[3] * dy, m[4] * dx + m[5] * dy);

        void *object = get_object(tp, (int)i);
        PyObject *key = object ? PyLong_FromVoidPtr(object) : PyLong_FromLong(0);
        PyObject *raw_angle = NULL, *direction_tilt = NULL, *known = NULL;
        if (!origin || !key)
            goto fail_char;
        if (object && !generated) {
            /* a drawn character's angle is its text object's: asked once per object */
            raw_angle = PyDict_GetItemWithError(angles, key);
            if (raw_angle) {
                Py_INCREF(raw_angle);
            } else {
                if (PyErr_Occurred())
                    goto fail_char;
                raw_angle = PyFloat_FromDouble((double)get_angle(tp, (int)i));
                if (!raw_angle || PyDict_SetItem(angles, key, raw_angle) < 0)
                    goto fail_char;
            }
        } else {
            raw_angle = PyFloat_FromDouble((double)get_angle(tp, (int)i));
            if (!raw_angle)
                goto fail_char;
        }
        direction_tilt = remembered(turns, turn, raw_angle);
        if (!direction_tilt)
            goto fail_char;
        if (!PyTuple_Check(direction_tilt) || PyTuple_GET_SIZE(direction_tilt) != 2) {
            PyErr_SetString(PyExc_TypeError, "turn() must give (direction, tilt)");
            goto fail_char;
        }
        PyObject *visible = Py_True, *size = NULL, *bold = Py_False, *italic = Py_False;
        if (object) {
            known = remembered(objects, facts, key);
            if (!known)
                goto fail_char;
            if (!PyTuple_Check(known) || PyTuple_GET_SIZE(known) != 4) {
                PyErr_SetString(PyExc_TypeError, "facts() must give 4 values");
                goto fail_char;
            }
            visible = PyTuple_GET_ITEM(known, 0);
            size = PyTuple_GET_ITEM(known, 1);
            bold = PyTuple_GET_ITEM(known, 2);
            italic = PyTuple_GET_ITEM(known, 3);
        }
        double size_value = 0.0;
        if (size) {
            size_value = PyFloat_AsDouble(size);
            if (size_value == -1.0 && PyErr_Occurred())
                goto fail_char;
        }
        PyObject *size_obj;
        if (size && !(size_value <= 0)) {
            Py_INCREF(size);
            size_obj = size;
        } else {
            size_obj = PyFloat_FromDouble(font_size_at(tp, (int)i));
            if (!size_obj)
                goto fail_char;
        }
        /* PDFium marks only dashes and its own U+0002 as line-end hyphens */
        int hyphen = code == 0x02 || (!Py_UNICODE_ISALNUM(ch) && is_hyphen(tp, (int)i) != 0);
        int map_error = map_error_at(tp, (int)i) == 1;
        PyObject *text = PyUnicode_FromOrdinal((int)ch);
        PyObject *index = PyLong_FromSsize_t(i);
        PyObject *c = NULL;
        if (text && index) {
            PyObject *fields[15] = {
                text, tight, loose_box, origin, PyTuple_GET_ITEM(direction_tilt, 0),
                PyTuple_GET_ITEM(direction_tilt, 1), size_obj, index,
                generated ? Py_True : Py_False, hyphen ? Py_True : Py_False,
                map_error ? Py_True : Py_False, visible, key, bold, italic};
            c = PyObject_Vectorcall(char_class, fields, 15, NULL);
        }
        Py_XDECREF(text);
        Py_XDECREF(index);
        Py_DECREF(size_obj);
        if (!c || PyList_Append(out, c) < 0) {
            Py_XDECREF(c);
            goto fail_char;
        }
        Py_DECREF(c);
        Py_DECREF(tight);
        Py_DECREF(loose_box);
        Py_DECREF(origin);
        Py_DECREF(key);
        Py_DECREF(raw_angle);
        Py_DECREF(direction_tilt);
        Py_XDECREF(known);
        continue;
    fail_char:
        Py_DECREF(tight);
        Py_DECREF(loose_box);
        Py_XDECREF(origin);
        Py_XDECREF(key);
        Py_XDECREF(raw_angle);
        Py_XDECREF(direction_tilt);
        Py_XDECREF(known);
        goto fail;
    }
    Py_DECREF(objects);
    Py_DECREF(turns);
    Py_DECREF(angles);
    return out;
fail:
    Py_XDECREF(out);
    Py_XDECREF(objects);
    Py_XDECREF(turns);
    Py_XDECREF(angles);
    return NULL;
}

static PyMethodDef methods[] = {
    {"read_chars", read_chars, METH_VARARGS,
     "read_chars(tp, n, codes, functions, matrix, turn, facts, char_class) -> list of Char: "
     "chars.py's character loop (see mineru_tui/pdf/chars.py)."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_charloop",
                                    "chars.py's character loop in C (optional).", -1, methods};

PyMODINIT_FUNC
PyInit__charloop(void)
{
    return PyModule_Create(&module);
}
