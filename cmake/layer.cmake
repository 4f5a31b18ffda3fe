# ferry_layer(NAME SOURCES...): an object library of one layer of the tree,
# compiled for the shared library (hidden visibility, PIC).
function(ferry_layer name)
  add_library(${name} OBJECT ${ARGN})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(${name} PUBLIC MPI::MPI_C)
  set_target_properties(${name} PROPERTIES C_VISIBILITY_PRESET hidden)
endfunction()
