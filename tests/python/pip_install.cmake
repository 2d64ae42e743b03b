# `pip install .` of the repository into a scratch directory, then a smoke subset of the tests
# against that installed copy (not the CTest-built one). Run by CTest as python_pip_install.
file(REMOVE_RECURSE ${DEST})
# setuptools' build tree goes beside DEST, not into the shared source tree (see setup.py)
set(ENV{MSAMPLER_PY_BUILD_BASE} ${DEST}-build)
file(MAKE_DIRECTORY ${DEST}-build)
execute_process(COMMAND ${PYTHON} -m pip install --no-build-isolation --no-deps --disable-pip-version-check
                        --no-warn-script-location -q --target ${DEST} ${SRC}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pip install . failed (${rc}):\n${out}\n${err}")
endif()
set(ENV{PYTHONPATH} ${DEST})
set(ENV{PYTHONDONTWRITEBYTECODE} 1)
execute_process(COMMAND ${PYTHON} -c "import msampler, os; f = msampler.__file__; assert f.startswith(os.environ['PYTHONPATH']), f; print('installed at', os.path.dirname(f))"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the installed package does not import")
endif()
execute_process(COMMAND ${PYTHON} -m pytest -q -p no:cacheprovider ${SRC}/python/tests/test_declarations.py
                        ${SRC}/python/tests/test_validation.py ${SRC}/python/tests/test_resource.py
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pytest against the pip-installed package failed (${rc})")
endif()
