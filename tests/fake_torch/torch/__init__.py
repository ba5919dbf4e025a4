"""A stand-in for the few PyTorch calls profiler/mgsim_profile_model.py makes,
so that tests/profile_cli_test.sh runs the helper's training loop without a
GPU or PyTorch. No arithmetic: each forward and backward sleeps for a fixed
time (FORWARD_S, BACKWARD_S) and so does the optimizer's step (STEP_S); the
NVTX marks go, one a line, to the file $FAKE_TORCH_MARKS.
"""

import contextlib
import os
import time

__version__ = "0.0-fake"
float16, bfloat16 = "float16", "bfloat16"
FORWARD_S, BACKWARD_S, STEP_S = 0.003, 0.004, 0.002


class _Version:
    cuda = "0.0-fake"


version = _Version()


class _Mark:
    @staticmethod
    def mark(name):
        with open(os.environ["FAKE_TORCH_MARKS"], "a") as out:
            out.write(name + "\n")


class _Properties:
    name, major, minor, total_memory = "Fake GPU", 9, 0, 1 << 30


class cuda:  # noqa: N801 (torch.cuda)
    nvtx = _Mark

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def set_device(_):
        pass

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def get_device_properties(_):
        return _Properties()


class backends:  # noqa: N801
    class cudnn:  # noqa: N801
        @staticmethod
        def version():
            return 0


class device:  # noqa: N801
    def __init__(self, kind, index):
        self.type, self.index = kind, index


def autocast(*_, **__):
    return contextlib.nullcontext()


class Parameter:
    """A parameter: its gradient hooks run when the loss's backward reaches it."""

    requires_grad = True

    def __init__(self, elements):
        self.elements, self.hooks = elements, []

    def numel(self):
        return self.elements

    def element_size(self):
        return 4

    def register_post_accumulate_grad_hook(self, hook):
        self.hooks.append(hook)


class Module:
    """Named parameters of named layers, run in order; forward hooks as PyTorch calls them."""

    def __init__(self, layers):
        self.layers = layers  # [(name, {param name: Parameter})]
        self.forward_hooks = {name: [] for name, _ in layers}

    def named_parameters(self):
        for name, params in self.layers:
            for pname, p in params.items():
                yield "%s.%s" % (name, pname), p

    def get_submodule(self, name):
        owner = self

        class _Sub:
            @staticmethod
            def register_forward_hook(hook):
                owner.forward_hooks[name].append(hook)

        return _Sub()

    def train(self):
        return self

    def __call__(self):
        time.sleep(FORWARD_S)
        for name, _ in self.layers:
            for hook in self.forward_hooks[name]:
                hook(self, None, None)
        return _Loss(self)


class _Loss:
    def __init__(self, model):
        self.model = model

    def backward(self):
        time.sleep(BACKWARD_S)
        for _, params in reversed(self.model.layers):
            for p in params.values():
                for hook in p.hooks:
                    hook(p)


class _Optimizer:
    def __init__(self, params, **_):
        self.params = list(params)

    def step(self):
        time.sleep(STEP_S)

    def zero_grad(self, set_to_none=True):
        pass


class optim:  # noqa: N801
    SGD = _Optimizer
    Adam = _Optimizer
