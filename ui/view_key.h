/* Key dispatch for the explorer's view (ui/view_key.c): what a key press
   does, whatever the view shown. */
#ifndef T2P_VIEW_KEY_H
#define T2P_VIEW_KEY_H

#include "ui/view_types.h"

/* Applies one key (a byte or a view_keycode, ui/keys.h). Returns VIEW_DRAW_*
   bits or VIEW_QUIT. */
int view_key(view *v, int key);

#endif
