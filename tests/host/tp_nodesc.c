/* Test module: a shared object that is not a crfpipe plugin at all. */
int tp_nodesc_LTX_something_else(void);
int tp_nodesc_LTX_something_else(void)
{
    return 42;
}
