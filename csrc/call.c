/* pycompile._call: the hot path of a compiled call, in one C function (backend/executable.py,
 * Executable.make_caller, builds one Caller per compiled specialization).
 *
 * Why C: the Python side of a one-element call (W8) was most of its cost. In Python each input
 * pointer is an ffi.from_buffer (~0.2 us), each output an np.empty plus a from_buffer, each
 * result a Tensor built by a Python call. Here an input's pointer is a struct read
 * (PyArray_DATA), an output one PyArray_NewFromDescr, a result one tp_alloc, and the signature
 * guard a few pointer and integer compares.
 *
 * Semantics stay the Python caller's, which remains the fallback for anything unusual: an input
 * that is not a C-contiguous ndarray, and a call overlapping another on the same executable
 * (another Python thread: the executable's lock is held, the fallback takes its own argument
 * array and arena). The entry runs with the GIL released, as cffi runs it. A non-zero return
 * code goes to the executable's _raise, which raises what MindSpore raises.
 *
 * Caller(entry, template, n_slots, owner, acquire, release, positions, refs, outs, returns,
 *        container, tensor_type, fallback, raise_, gen_list)
 *   entry     address of int pc_entry(void **)
 *   template  address of a void *[n_slots] whose constant and arena slots are copied once
 *   owner     kept alive: it owns the constants, the arena and the template
 *   positions argument index of each graph input; refs: the Parameters read after them
 *   outs      per graph output (slot, shape tuple, np.dtype); returns: per returned value
 *             (output index, as a Python number?); container: None, tuple or list
 *   gen_list  context's generation list: `guarded` calls check its item 0
 * run(args, kwargs=None): the call (its signature already matched by the caller's dict)
 * guarded(sig, gen, args): the call if `args` are exact Tensors matching `sig` ((dtype, shape)
 *   per argument, a dict key's signature) under configuration generation `gen`; else None.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

typedef int (*entry_fn)(void **);

typedef struct {
    int slot;
    int ndim;
    npy_intp dims[NPY_MAXDIMS];
    PyArray_Descr *descr;
} OutSpec;

typedef struct {
    PyObject_HEAD
    entry_fn entry;
    void **slots;
    Py_ssize_t n_slots;
    PyObject *owner, *acquire, *release, *refs, *tensor_type, *fallback, *raise_, *gen_list;
    PyObject *container;         /* NULL: one value */
    Py_ssize_t n_in, n_refs, n_out, n_ret;
    Py_ssize_t *positions;
    OutSpec *outs;
    Py_ssize_t *ret_index;
    char *ret_scalar;
} Caller;

static PyObject *s_data, *s_item;

#define MAX_HELD 64

static void Caller_dealloc(Caller *self)
{
    Py_XDECREF(self->owner); Py_XDECREF(self->acquire); Py_XDECREF(self->release);
    Py_XDECREF(self->refs); Py_XDECREF(self->tensor_type); Py_XDECREF(self->fallback);
    Py_XDECREF(self->raise_); Py_XDECREF(self->gen_list); Py_XDECREF(self->container);
    if (self->outs)
        for (Py_ssize_t k = 0; k < self->n_out; k++)
            Py_XDECREF(self->outs[k].descr);
    PyMem_Free(self->slots); PyMem_Free(self->positions); PyMem_Free(self->outs);
    PyMem_Free(self->ret_index); PyMem_Free(self->ret_scalar);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int set_obj(PyObject **dst, PyObject *v) { Py_INCREF(v); *dst = v; return 0; }

static int Caller_init(Caller *self, PyObject *args, PyObject *kw)
{
    unsigned long long entry, tmpl;
    Py_ssize_t n_slots;
    PyObject *owner, *acquire, *release, *positions, *refs, *outs, *returns, *container, *ttype,
        *fallback, *raise_, *gen_list;
    if (!PyArg_ParseTuple(args, "KKnOOOO!O!O!O!OOOOO!", &entry, &tmpl, &n_slots, &owner, &acquire,
                          &release, &PyTuple_Type, &positions, &PyTuple_Type, &refs, &PyTuple_Type,
                          &outs, &PyTuple_Type, &returns, &container, &ttype, &fallback, &raise_,
                          &PyList_Type, &gen_list))
        return -1;
    if (self->slots) {
        PyErr_SetString(PyExc_RuntimeError, "Caller is initialized once");
        return -1;
    }
    self->entry = (entry_fn)(uintptr_t)entry;
    self->n_slots = n_slots;
    self->slots = PyMem_Calloc(n_slots ? n_slots : 1, sizeof(void *));
    self->n_in = PyTuple_GET_SIZE(positions);
    self->n_refs = PyTuple_GET_SIZE(refs);
    self->n_out = PyTuple_GET_SIZE(outs);
    self->n_ret = PyTuple_GET_SIZE(returns);
    self->positions = PyMem_Calloc(self->n_in + 1, sizeof(Py_ssize_t));
    self->outs = PyMem_Calloc(self->n_out + 1, sizeof(OutSpec));
    self->ret_index = PyMem_Calloc(self->n_ret + 1, sizeof(Py_ssize_t));
    self->ret_scalar = PyMem_Calloc(self->n_ret + 1, 1);
    if (!self->slots || !self->positions || !self->outs || !self->ret_index || !self->ret_scalar) {
        PyErr_NoMemory();
        return -1;
    }
    if (self->n_ret < 1) {
        PyErr_SetString(PyExc_ValueError, "Caller: no result");
        return -1;
    }
    memcpy(self->slots, (void *)(uintptr_t)tmpl, n_slots * sizeof(void *));
    set_obj(&self->owner, owner); set_obj(&self->acquire, acquire); set_obj(&self->release, release);
    set_obj(&self->refs, refs); set_obj(&self->tensor_type, ttype); set_obj(&self->fallback, fallback);
    set_obj(&self->raise_, raise_); set_obj(&self->gen_list, gen_list);
    if (container != Py_None)
        set_obj(&self->container, container);
    for (Py_ssize_t k = 0; k < self->n_in; k++) {
        self->positions[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, k));
        if (self->positions[k] < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "Caller: a negative position");
            return -1;
        }
    }
    for (Py_ssize_t k = 0; k < self->n_out; k++) {
        PyObject *spec = PyTuple_GET_ITEM(outs, k), *shape, *dt;
        OutSpec *o = &self->outs[k];
        if (!PyArg_ParseTuple(spec, "iO!O", &o->slot, &PyTuple_Type, &shape, &dt))
            return -1;
        if (!PyArray_DescrCheck(dt) || PyTuple_GET_SIZE(shape) > NPY_MAXDIMS || o->slot < 0 || o->slot >= n_slots) {
            PyErr_SetString(PyExc_ValueError, "Caller: a bad output spec");
            return -1;
        }
        o->ndim = (int)PyTuple_GET_SIZE(shape);
        for (int d = 0; d < o->ndim; d++)
            o->dims[d] = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, d));
        if (PyErr_Occurred())
            return -1;
        Py_INCREF(dt);
        o->descr = (PyArray_Descr *)dt;
    }
    for (Py_ssize_t k = 0; k < self->n_ret; k++) {
        int scalar;
        if (!PyArg_ParseTuple(PyTuple_GET_ITEM(returns, k), "np", &self->ret_index[k], &scalar))
            return -1;
        if (self->ret_index[k] < 0 || self->ret_index[k] >= self->n_out) {
            PyErr_SetString(PyExc_ValueError, "Caller: a bad return index");
            return -1;
        }
        self->ret_scalar[k] = (char)scalar;
    }
    if (self->n_in + self->n_refs + self->n_out > n_slots) {
        PyErr_SetString(PyExc_ValueError, "Caller: more arguments than slots");
        return -1;
    }
    return 0;
}

/* The array behind a Tensor (a new reference), or NULL without an exception when it is not a
 * C-contiguous ndarray (the Python caller copes), or NULL with one. */
static PyObject *tensor_array(PyObject *t)
{
    PyObject *a = PyObject_GetAttr(t, s_data);
    if (a == NULL)
        return NULL;
    if (!PyArray_Check(a) || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)a)) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

static PyObject *wrap(Caller *self, PyObject *arr, int scalar)
{
    if (scalar)
        return PyObject_CallMethodNoArgs(arr, s_item);
    PyTypeObject *tt = (PyTypeObject *)self->tensor_type;
    PyObject *t = tt->tp_alloc(tt, 0);
    if (t == NULL)
        return NULL;
    if (PyObject_SetAttr(t, s_data, arr) < 0) {
        Py_DECREF(t);
        return NULL;
    }
    return t;
}

static PyObject *call_fallback(Caller *self, PyObject *args)
{
    return PyObject_CallOneArg(self->fallback, args);
}

/* held / outs: room for n_in + n_refs and n_out references (do_call's stack, or the heap) */
static PyObject *call_with(Caller *self, PyObject *args, PyObject **held, PyObject **outs)
{
    Py_ssize_t n_held = 0, n_args = PyTuple_GET_SIZE(args);
    PyObject *result = NULL;
    for (Py_ssize_t k = 0; k < self->n_in; k++) {
        Py_ssize_t p = self->positions[k];
        PyObject *a = p < n_args ? tensor_array(PyTuple_GET_ITEM(args, p)) : NULL;
        if (a == NULL)
            goto unusual;
        held[n_held++] = a;
    }
    for (Py_ssize_t k = 0; k < self->n_refs; k++) {
        PyObject *a = tensor_array(PyTuple_GET_ITEM(self->refs, k));
        if (a == NULL)
            goto unusual;
        held[n_held++] = a;
    }
    PyObject *got = PyObject_CallOneArg(self->acquire, Py_False);
    if (got == NULL)
        goto done;
    Py_DECREF(got);
    if (got != Py_True)
        goto unusual;       /* another thread runs this executable: the fallback has its own arena */
    for (Py_ssize_t k = 0; k < n_held; k++)
        self->slots[k] = PyArray_DATA((PyArrayObject *)held[k]);
    Py_ssize_t n_out = 0;
    for (; n_out < self->n_out; n_out++) {
        OutSpec *o = &self->outs[n_out];
        Py_INCREF(o->descr);
        outs[n_out] = PyArray_NewFromDescr(&PyArray_Type, o->descr, o->ndim, o->dims, NULL, NULL, 0, NULL);
        if (outs[n_out] == NULL)
            break;
        self->slots[o->slot] = PyArray_DATA((PyArrayObject *)outs[n_out]);
    }
    int rc = -1;
    if (n_out == self->n_out) {
        Py_BEGIN_ALLOW_THREADS
        rc = self->entry(self->slots);
        Py_END_ALLOW_THREADS
    }
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);           /* an output's allocation failed: keep its error */
    PyObject *rel = PyObject_CallNoArgs(self->release);
    Py_XDECREF(rel);
    if (et != NULL) {
        PyErr_Clear();
        PyErr_Restore(et, ev, tb);
    }
    if (n_out < self->n_out || et != NULL || rel == NULL)
        goto free_outs;
    if (rc != 0) {
        PyObject *code = PyLong_FromLong(rc);
        if (code != NULL) {
            Py_XDECREF(PyObject_CallOneArg(self->raise_, code));     /* raises */
            Py_DECREF(code);
        }
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_RuntimeError, "compiled code returned error %d", rc);
        goto free_outs;
    }
    if (self->container == NULL) {
        result = wrap(self, outs[self->ret_index[0]], self->ret_scalar[0]);
    } else {
        PyObject *vals = PyTuple_New(self->n_ret);
        if (vals != NULL) {
            for (Py_ssize_t k = 0; k < self->n_ret; k++) {
                PyObject *v = wrap(self, outs[self->ret_index[k]], self->ret_scalar[k]);
                if (v == NULL) {
                    Py_CLEAR(vals);
                    break;
                }
                PyTuple_SET_ITEM(vals, k, v);
            }
        }
        if (vals != NULL && self->container != (PyObject *)&PyTuple_Type) {
            result = PySequence_List(vals);
            Py_DECREF(vals);
        } else {
            result = vals;
        }
    }
free_outs:
    for (Py_ssize_t k = 0; k < n_out; k++)
        Py_DECREF(outs[k]);
    goto done;
unusual:
    /* not a C-contiguous ndarray, no such argument or attribute, or the executable busy: the
     * Python caller handles it (and raises what a Python call raises) */
    PyErr_Clear();
    for (Py_ssize_t k = 0; k < n_held; k++)
        Py_DECREF(held[k]);
    return call_fallback(self, args);
done:
    for (Py_ssize_t k = 0; k < n_held; k++)
        Py_DECREF(held[k]);
    return result;
}

static PyObject *do_call(Caller *self, PyObject *args)
{
    if (self->n_in + self->n_refs <= MAX_HELD && self->n_out <= MAX_HELD) {
        PyObject *held[MAX_HELD], *outs[MAX_HELD];
        return call_with(self, args, held, outs);
    }
    /* a model with more Parameters than that (W6 L=12: 194): per call, not per Caller - another
     * Python thread may be inside this Caller at the same time, with its own references */
    PyObject **held = PyMem_Malloc(sizeof(PyObject *) * (size_t)(self->n_in + self->n_refs + self->n_out + 1));
    if (held == NULL)
        return PyErr_NoMemory();
    PyObject *result = call_with(self, args, held, held + self->n_in + self->n_refs);
    PyMem_Free(held);
    return result;
}

static PyObject *Caller_run(Caller *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2 || !PyTuple_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "run(args: tuple, kwargs=None)");
        return NULL;
    }
    return do_call(self, args[0]);
}

/* 1 when `args` match `sig` exactly as api._positional_key would key them (exact Tensors; a
 * dtype compared by identity, stricter than the dict's ==, so a miss only costs the dict path) */
static int matches(PyObject *sig, PyObject *args, PyTypeObject *tensor_type)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (!PyTuple_CheckExact(sig) || PyTuple_GET_SIZE(sig) != n)
        return 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *t = PyTuple_GET_ITEM(args, k), *want = PyTuple_GET_ITEM(sig, k);
        if (Py_TYPE(t) != tensor_type || !PyTuple_CheckExact(want) || PyTuple_GET_SIZE(want) != 2)
            return 0;
        PyObject *a = PyObject_GetAttr(t, s_data);
        if (a == NULL) {
            PyErr_Clear();
            return 0;
        }
        int ok = PyArray_Check(a);
        PyArrayObject *arr = (PyArrayObject *)a;
        PyObject *shape = PyTuple_GET_ITEM(want, 1);
        if (ok)
            ok = (PyObject *)PyArray_DESCR(arr) == PyTuple_GET_ITEM(want, 0) && PyTuple_CheckExact(shape)
                 && PyTuple_GET_SIZE(shape) == PyArray_NDIM(arr);
        for (int d = 0; ok && d < PyArray_NDIM(arr); d++) {
            PyObject *dim = PyTuple_GET_ITEM(shape, d);
            ok = PyLong_CheckExact(dim) && PyLong_AsSsize_t(dim) == PyArray_DIMS(arr)[d];
        }
        Py_DECREF(a);
        if (!ok)
            return 0;
    }
    return 1;
}

static PyObject *Caller_guarded(Caller *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "guarded(sig, gen, args: tuple)");
        return NULL;
    }
    PyObject *now = PyList_GET_SIZE(self->gen_list) ? PyList_GET_ITEM(self->gen_list, 0) : NULL;
    if (now == NULL || (now != args[1] && PyObject_RichCompareBool(now, args[1], Py_EQ) != 1)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!matches(args[0], args[2], (PyTypeObject *)self->tensor_type))
        Py_RETURN_NONE;
    return do_call(self, args[2]);
}

static PyMethodDef Caller_methods[] = {
    {"run", (PyCFunction)(void (*)(void))Caller_run, METH_FASTCALL, "run(args, kwargs=None): call"},
    {"guarded", (PyCFunction)(void (*)(void))Caller_guarded, METH_FASTCALL,
     "guarded(sig, gen, args): call when args match sig under generation gen, else None"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CallerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pycompile._call.Caller",
    .tp_basicsize = sizeof(Caller),
    .tp_dealloc = (destructor)Caller_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The prebuilt hot path of one compiled specialization (csrc/call.c)",
    .tp_methods = Caller_methods,
    .tp_init = (initproc)Caller_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef call_module = {
    PyModuleDef_HEAD_INIT, "pycompile._call", "The compiled call's hot path (csrc/call.c)", -1, NULL,
};

PyMODINIT_FUNC PyInit__call(void)
{
    import_array();
    s_data = PyUnicode_InternFromString("_data");
    s_item = PyUnicode_InternFromString("item");
    if (s_data == NULL || s_item == NULL || PyType_Ready(&CallerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&call_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&CallerType);
    if (PyModule_AddObject(m, "Caller", (PyObject *)&CallerType) < 0) {
        Py_DECREF(&CallerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
