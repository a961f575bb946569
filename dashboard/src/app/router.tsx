import { Navigate, createBrowserRouter } from 'react-router';
import { SignInPage } from '../pages/SignInPage';
import { NotFoundPage, RouteError } from '../pages/NotFoundPage';
import { AppLayout } from './AppLayout';
import { RequireSession } from './RequireSession';
import { SECTIONS } from './sections';

export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInPage />, errorElement: <RouteError /> },
    {
      element: (
        <RequireSession>
          <AppLayout />
        </RequireSession>
      ),
      errorElement: <RouteError />,
      children: [
        { index: true, element: <Navigate to="/overview" replace /> },
        // `/*`: a page may have routes of its own (a record's URL, tabs).
        ...SECTIONS.map(({ path, Page }) => ({ path: `/${path}/*`, element: <Page /> })),
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: '/dashboard' },
);
