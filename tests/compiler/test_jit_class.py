"""jit_class (issue 6): the spec's samples print the spec's output; every point of the issue."""
import inspect
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pycompile as ms
from pycompile import Tensor, nn, ops

SAMPLES = {
    "class attribute": ("""
        import numpy as np
        import pycompile.nn as nn
        import pycompile as ms

        @ms.jit_class
        class InnerNet:
            value = ms.Tensor(np.array([1, 2, 3]))

        class Net(nn.Cell):
            def construct(self):
                return InnerNet().value

        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        out = net()
        print(out)
        """, "[1 2 3]\n"),
    "nested": ("""
        import numpy as np
        import pycompile.nn as nn
        import pycompile as ms

        @ms.jit_class
        class Inner:
            def __init__(self):
                self.value = ms.Tensor(np.array([1, 2, 3]))

        @ms.jit_class
        class InnerNet:
            def __init__(self):
                self.inner = Inner()

        class Net(nn.Cell):
            def __init__(self):
                super(Net, self).__init__()
                self.inner_net = InnerNet()

            def construct(self):
                out = self.inner_net.inner.value
                return out

        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        out = net()
        print(out)
        """, "[1 2 3]\n"),
    "attributes and methods": ("""
        import pycompile.nn as nn
        import pycompile as ms

        @ms.jit_class
        class InnerNet:
            def __init__(self, val):
                self.number = val

            def act(self, x, y):
                return self.number * (x + y)

        class Net(nn.Cell):
            def __init__(self):
                super(Net, self).__init__()
                self.inner_net = InnerNet(2)

            def construct(self, x, y):
                return self.inner_net.number + self.inner_net.act(x, y)

        ms.set_context(mode=ms.GRAPH_MODE)
        x = ms.Tensor(2, dtype=ms.int32)
        y = ms.Tensor(3, dtype=ms.int32)
        net = Net()
        out = net(x, y)
        print(out)
        """, "12\n"),
    "create instance": ("""
        import numpy as np
        import pycompile.nn as nn
        import pycompile as ms

        @ms.jit_class
        class InnerNet:
            def __init__(self, val):
                self.number = val + 3

        class Net(nn.Cell):
            def construct(self):
                net = InnerNet(2)
                return net.number

        ms.set_context(mode=ms.GRAPH_MODE)
        net = Net()
        out = net()
        print(out)
        """, "5\n"),
    "call instance": ("""
        import numpy as np
        import pycompile.nn as nn
        import pycompile as ms

        @ms.jit_class
        class InnerNet:
            def __init__(self, number):
                self.number = number

            def __call__(self, x, y):
                return self.number * (x + y)

        class Net(nn.Cell):
            def construct(self, x, y):
                net = InnerNet(2)
                out = net(x, y)
                return out

        ms.set_context(mode=ms.GRAPH_MODE)
        x = ms.Tensor(2, dtype=ms.int32)
        y = ms.Tensor(3, dtype=ms.int32)
        net = Net()
        out = net(x, y)
        print(out)
        """, "10\n"),
}


def _run(code: str, tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(textwrap.dedent(code))
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ))


def test_spec_samples_print_spec_output(tmp_path):
    # all samples in one process: one interpreter start, a compile each
    code = "\n".join(f"def sample_{i}():\n" + textwrap.indent(textwrap.dedent(src), "    ") +
                     f"\nsample_{i}()\nprint('---')\n" for i, (src, _) in enumerate(SAMPLES.values()))
    proc = _run(code, tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = proc.stdout.split("---\n")[:-1]
    assert got == [out for _, out in SAMPLES.values()]


def test_jit_class_on_cell_is_the_spec_type_error():
    with pytest.raises(TypeError) as info:
        @ms.jit_class
        class Net(nn.Cell):
            def construct(self, x):
                return x
    assert str(info.value) == ("Decorator jit_class is used for user-defined classes and cannot be used for "
                               "nn.Cell: Net<>.")


def test_calling_instance_without_call_is_the_spec_value_error():
    @ms.jit_class
    class InnerNet:
        def __init__(self, number):
            self.number = number

    class Net(nn.Cell):
        def construct(self, x, y):
            net = InnerNet(2)
            out = net(x, y)
            return out

    ms.set_context(mode=ms.GRAPH_MODE)
    with pytest.raises(ValueError) as info:
        Net()(Tensor(2, ms.int32), Tensor(3, ms.int32))
    lines = str(info.value).splitlines()
    assert lines[0] == "MsClassObject: 'InnerNet' has no __call__ function, please check the code."
    line = inspect.getsourcelines(Net.construct)[1] + 2
    assert f"{__file__}:{line}:" in lines[1]
    assert isinstance(info.value, ms.CompileError)


@ms.jit_class
class Scaler:
    offset = 10                                    # class attribute

    def __init__(self, factor, bias):
        self.factor = factor                       # Python value
        self.bias = Tensor(np.array(bias, np.float32))   # tensor attribute

    def scale(self, x):
        if x.sum() > 0:                            # control flow on a tensor inside a method
            return x * self.factor + self.bias
        return x - self.offset

    def __call__(self, x):
        return self.scale(x) + Scaler.helper(self, x)

    def helper(self, x):
        return x * 0 + self.offset


@ms.jit_class
class ShiftedScaler(Scaler):                       # a subclass of a jit_class is a jit_class
    def scale(self, x):
        return Scaler.scale(self, x) + 1           # method called by class name


def np_scale(x, factor, bias, offset=10):
    return x * factor + bias if x.sum() > 0 else x - offset


class Holder(nn.Cell):
    def __init__(self, obj):
        super().__init__()
        self.obj = obj

    def construct(self, x):
        y = self.obj(x)                            # __call__
        return use(self.obj, y)                    # instance passed to another function


def use(obj, y):
    return obj.scale(y) * obj.factor


@pytest.mark.parametrize("cls,extra", [(Scaler, 0.0), (ShiftedScaler, 1.0)])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_methods_attributes_control_flow(cls, extra, sign):
    obj = cls(3.0, [1.0, 2.0])
    x = np.array([1.0, 2.0], np.float32) * sign
    net = Holder(obj)
    eager = net(Tensor(x)).asnumpy()               # PyNative: jit_class changes nothing
    ms.set_context(mode=ms.GRAPH_MODE)
    out = net(Tensor(x)).asnumpy()
    y = np_scale(x, 3.0, np.array([1.0, 2.0])) + extra + (x * 0 + 10)
    expected = (np_scale(y, 3.0, np.array([1.0, 2.0])) + extra) * 3.0
    np.testing.assert_allclose(eager, expected, rtol=1e-6)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert getattr(cls, "__ms_class__", False)


def test_instance_created_in_graph_needs_constant_arguments():
    @ms.jit
    def f(x):
        s = Scaler(x, [0.0, 0.0])
        return s(x)

    with pytest.raises(TypeError, match="argument 'factor' is a tensor computed at run time"):
        f(Tensor(np.ones(2, np.float32)))

    @ms.jit
    def g(x):
        s = Scaler(2.0, [1.0, 1.0])
        return s.scale(x)

    np.testing.assert_allclose(g(Tensor(np.ones(2, np.float32))).asnumpy(), [3.0, 3.0])


def test_attribute_write_in_graph_is_a_clear_error():
    obj = Scaler(1.0, [0.0])

    @ms.jit
    def f(x):
        obj.factor = 2.0
        return x

    with pytest.raises(ms.CompileError, match="assigning attribute 'factor'"):
        f(Tensor(np.ones(1, np.float32)))
    assert obj.factor == 1.0
