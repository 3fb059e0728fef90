#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run rdma-core's pyverbs suite (run_tests.py) so that its verbose
output names every test by its id, not by its docstring, and so that
the random attributes its tests draw are the same from run to run:

    pyverbs-run.py TESTS_DIR --dev DEVICE -v
"""
import random
import runpy
import sys
import unittest

unittest.TestCase.shortDescription = lambda self: None
random.seed(5)
tests_dir = sys.argv[1]
sys.argv = [tests_dir + '/run_tests.py'] + sys.argv[2:]
sys.path.insert(0, tests_dir)
runpy.run_path(sys.argv[0], run_name='__main__')
