// A shared library that is loadable but exports no UCMoH factory: what a
// vendor gets when UCMOH_DEFINE_PLUGIN is forgotten.
extern "C" __attribute__((visibility("default"))) int vendor_helper_without_factory() { return 7; }
