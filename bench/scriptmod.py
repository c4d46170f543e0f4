"""Import one of bench/'s extension-less scripts as a module (for its tests)."""
import importlib.machinery
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(script):
    """The module of bench/SCRIPT, executed (its main() not called)."""
    name = script.replace('-', '_')
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(HERE, script))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module
